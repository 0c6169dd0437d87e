/**
 * The SolidStart request being served, if any, and its response headers, read structurally so
 * SolidStart 1.x (vinxi) and 2.x events both fit.
 */
import { getRequestEvent } from "solid-js/web";

/** The part of a SolidStart event whose response headers can take a cookie. */
export interface ResponseHeadersHolder {
  response?: { headers?: { append(name: string, value: string): void } };
}

/** The event of the request being served, or `undefined` outside a SolidStart request. */
export function currentEvent(): ({ request: Request } & ResponseHeadersHolder) | undefined {
  return getRequestEvent() as ({ request: Request } & ResponseHeadersHolder) | undefined;
}

/**
 * Appends `Set-Cookie` values to an event's response. Once a streamed page has sent its headers
 * they can no longer change (vinxi throws): the cookies are then dropped, and the session rolls on
 * the next request that sends its headers later.
 */
export function appendCookies(event: ResponseHeadersHolder | undefined, cookies: string[]): void {
  const headers = event?.response?.headers;
  if (!headers) return;
  for (const cookie of cookies) {
    try {
      headers.append("Set-Cookie", cookie);
    } catch {
      return;
    }
  }
}
