/**
 * The CSRF token for a server-rendered form that posts to the auth route, with its cookie set on
 * the current SolidStart response.
 */
import { appendCookies, readCsrfToken } from "@gatehousejs/core/integration";
import type { SolidAuthConfig } from "./handler.js";
import { currentEvent } from "./request-event.js";

/**
 * The CSRF token for a form that posts to the auth route from a server-rendered page, such as
 * a sign-out form (`<form method="post" action="/api/auth/signout">` with a hidden `csrfToken`).
 * It is the token of the browser's CSRF cookie when that cookie is valid; otherwise a new one,
 * whose cookie is appended to the current SolidStart response. On a streamed page, read it in a
 * query the page waits for (`createAsync(..., { deferStream: true })`) so that the cookie is
 * sent before the headers are.
 *
 * Throws an `Error` when a new cookie is needed outside a SolidStart request (it could not
 * reach the browser), and when the auth route does not answer a token (its configuration is
 * broken: core has logged why).
 *
 * @example
 * ```ts
 * import { getCsrfToken, type SolidAuthConfig } from "@gatehousejs/solid-start";
 * import { query } from "@solidjs/router";
 * import { getRequestEvent } from "solid-js/web";
 *
 * declare const authConfig: SolidAuthConfig;
 * export const csrfQuery = query(async () => {
 *   "use server";
 *   const event = getRequestEvent();
 *   return event ? getCsrfToken(event.request, authConfig) : null;
 * }, "csrf");
 * ```
 */
export async function getCsrfToken(request: Request, config: SolidAuthConfig): Promise<string> {
  const event = await currentEvent();
  const { csrfToken, cookies } = await readCsrfToken(request, config);
  if (cookies.length > 0) {
    if (!event) {
      throw new Error(
        'getCsrfToken() sets a cookie, which needs a SolidStart request: call it from a "use server" function',
      );
    }
    appendCookies(event, cookies);
  }
  return csrfToken;
}
