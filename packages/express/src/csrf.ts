/**
 * `getCsrfToken(req, res)`: the CSRF token for a form a server-rendered page posts to the auth
 * routes (a sign-out button, say).
 */
import { readCsrfToken } from "@gatehousejs/core/integration";
import type { Request as ExpressRequest, Response as ExpressResponse } from "express";
import { configOf } from "./config.js";
import { sessionRequestOf } from "./request.js";
import { forwardCookies } from "./response.js";

/**
 * The CSRF token for a form that posts to the auth routes from a page the app renders: the token
 * of the browser's CSRF cookie when that cookie is valid, else a new one, whose cookie goes on
 * `res` (call it before the response's headers are sent). Asked of the auth routes in-process,
 * never over HTTP.
 *
 * Throws an `Error` when the request did not pass through a `gatehouse(config)` router, or when
 * the auth routes answer no token (a broken configuration, which core has logged).
 *
 * @example
 * ```ts
 * import { gatehouse, getCsrfToken } from "@gatehousejs/express";
 * import express from "express";
 *
 * const app = express();
 * app.use(gatehouse({ providers: [] }));
 * app.get("/bye", async (req, res) => {
 *   const token = await getCsrfToken(req, res);
 *   res.send(`<form method="post" action="/api/auth/signout">
 *     <input type="hidden" name="csrfToken" value="${token}"><button>Sign out</button></form>`);
 * });
 * ```
 */
export async function getCsrfToken(req: ExpressRequest, res: ExpressResponse): Promise<string> {
  const config = configOf(req, "getCsrfToken");
  const { csrfToken, cookies } = await readCsrfToken(sessionRequestOf(req), config);
  forwardCookies(res, cookies);
  return csrfToken;
}
