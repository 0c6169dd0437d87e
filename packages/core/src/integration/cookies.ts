/**
 * Forwarding the cookies a session check renews (rolling expiry) or clears to the response of
 * the page being rendered.
 */

/** The part of a framework's event whose response headers can take a cookie. */
export interface ResponseHeadersHolder {
  response?: { headers?: { append(name: string, value: string): void } };
}

/** The cookie names already set on each response: the first check's answer wins. */
const setOn = new WeakMap<object, Set<string>>();

/**
 * Appends `Set-Cookie` values to an event's response, once per cookie name: when a middleware
 * and then the page both read the session of one request, both would renew the same cookie
 * from the same incoming one, and the second copy would only add bytes.
 *
 * Once a streamed page has sent its headers they can no longer change (vinxi throws): the
 * cookies are then dropped, and the session rolls on the next request that sends its headers
 * later.
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
