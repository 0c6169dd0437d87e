/**
 * The CSRF token for a server-rendered form that posts to the auth route, with its cookie set on
 * the response being built.
 */
import { readCsrfToken } from "@gatehousejs/core/integration";
import type { Context } from "hono";
import type { HonoAuthConfig } from "./types.js";

/**
 * The CSRF token for a form that posts to the auth route from a page the app renders, such as a
 * sign-out form (`<form method="post" action="/api/auth/signout">` with a hidden `csrfToken`).
 * It is the token of the browser's CSRF cookie when that cookie is valid; otherwise a new one,
 * whose cookie is set on the context's response (call it before returning `c.html(...)`).
 *
 * Throws an `Error` when the auth route does not answer a token (its configuration is broken:
 * core has logged why).
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { html } from "hono/html";
 * import { getCsrfToken, type HonoAuthConfig } from "@gatehousejs/hono";
 *
 * declare const authConfig: HonoAuthConfig;
 * const app = new Hono();
 * app.get("/bye", async (c) => {
 *   const csrfToken = await getCsrfToken(c, authConfig);
 *   return c.html(html`<form method="post" action="/api/auth/signout">
 *     <input type="hidden" name="csrfToken" value="${csrfToken}"><button>Sign out</button>
 *   </form>`);
 * });
 * ```
 */
export async function getCsrfToken(c: Context, config: HonoAuthConfig): Promise<string> {
  const { csrfToken, cookies } = await readCsrfToken(c.req.raw, config);
  for (const cookie of cookies) c.header("Set-Cookie", cookie, { append: true });
  return csrfToken;
}
