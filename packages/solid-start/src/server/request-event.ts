/**
 * The SolidStart request being served, if any, and its response headers, read structurally so
 * SolidStart 1.x (vinxi) and 2.x events both fit.
 */

/** The part of a SolidStart event whose response headers can take a cookie. */
export interface ResponseHeadersHolder {
  response?: { headers?: { append(name: string, value: string): void } };
}

/** A SolidStart event as read here. */
export type CurrentEvent = { request: Request } & ResponseHeadersHolder;

type SolidWeb = typeof import("solid-js/web");
let solidWeb: SolidWeb | undefined;

/**
 * The event of the request being served, or `undefined` outside a SolidStart request.
 * `solid-js/web` is loaded on first use: the auth route and the middleware never need it, so a
 * cold start that only answers them does not pay for it. Once loaded, the event is read before
 * any await, as solid-js asks.
 */
export async function currentEvent(): Promise<CurrentEvent | undefined> {
  solidWeb ??= await import("solid-js/web");
  return solidWeb.getRequestEvent() as CurrentEvent | undefined;
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
