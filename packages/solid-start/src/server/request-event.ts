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

/** The cookie names already set on each response by this package: the first check's answer wins. */
const setOn = new WeakMap<object, Set<string>>();

/**
 * Appends `Set-Cookie` values to an event's response, once per cookie name: when the middleware
 * and then the page both read the session of one request, both would renew the same cookie
 * from the same incoming one, and the second copy would only add bytes.
 *
 * Once a streamed page has sent its headers they can no longer change (vinxi throws): the cookies
 * are then dropped, and the session rolls on the next request that sends its headers later.
 */
export function appendCookies(event: ResponseHeadersHolder | undefined, cookies: string[]): void {
  const response = event?.response;
  const headers = response?.headers;
  if (!response || !headers) return;
  let names = setOn.get(response);
  if (!names) {
    names = new Set();
    setOn.set(response, names);
  }
  for (const cookie of cookies) {
    const name = cookie.slice(0, cookie.indexOf("="));
    if (names.has(name)) continue;
    try {
      headers.append("Set-Cookie", cookie);
    } catch {
      return;
    }
    names.add(name);
  }
}
