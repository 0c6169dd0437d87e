/**
 * `requireAuth()`: a route only for signed-in visitors. An API call without a session gets a
 * JSON 401; a page gets a redirect to the sign-in page that comes back to it.
 */
import { redirectResponse, sameSitePath, signInRedirect } from "@gatehousejs/core/integration";
import type { MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import { sessionReadOf } from "./session.js";
import type { SessionWithUser, SignedInEnv } from "./types.js";

/** Options of {@link requireAuth}. */
export interface RequireAuthOptions {
  /**
   * How a request without a signed-in user is answered:
   *
   * - `"json"`: `401` with `{ "error": "Unauthenticated", "message": "Sign in first." }`, for APIs;
   * - `"redirect"`: `302` to the sign-in page, `<prefix>/signin?callbackUrl=<the page>`, so that
   *   signing in brings the visitor back (or to `redirectTo`);
   * - `"auto"` (default): `"redirect"` for a page, a `GET` or `HEAD` whose `Accept` names
   *   `text/html` (what a browser sends when it navigates), `"json"` for anything else.
   */
  signedOut?: "auto" | "json" | "redirect";
  /**
   * A path on this site to redirect to instead of the sign-in page, such as `"/welcome"`. An
   * absolute URL or a `//host` path is refused with a `TypeError` when the middleware is built.
   */
  redirectTo?: string;
}

const unauthenticated = { error: "Unauthenticated", message: "Sign in first." };
const noStore = { "Cache-Control": "private, no-cache, no-store" };

/** Whether a request is a browser loading a page, rather than a script calling an API. */
function isPage(request: Request): boolean {
  if (request.method !== "GET" && request.method !== "HEAD") return false;
  return (request.headers.get("accept") ?? "").toLowerCase().includes("text/html");
}

/**
 * A middleware that lets only signed-in visitors through: with a session that has a `user`,
 * the next handler runs and sees `c.get("session")` and `c.get("user")` typed as non-null;
 * without one, it answers as {@link RequireAuthOptions.signedOut} says. The page to come back to
 * is the requested path and query, never another origin. A cookie the session read cleared
 * reaches the browser with the 401 or the redirect.
 *
 * It reads the session `gatehouse()` or `authSession()` put on the context: register one of them
 * before it, or the request fails with an `Error` that says so.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { html } from "hono/html";
 * import { type AuthEnv, requireAuth } from "@gatehousejs/hono";
 *
 * const app = new Hono<AuthEnv>();
 * app.get("/api/me", requireAuth(), (c) => c.json({ email: c.get("user").email }));
 * app.get("/account", requireAuth({ signedOut: "redirect" }), (c) =>
 *   c.html(html`<h1>Hello ${c.get("user").name}</h1>`),
 * );
 * ```
 */
export function requireAuth(options: RequireAuthOptions = {}): MiddlewareHandler<SignedInEnv> {
  const { signedOut = "auto", redirectTo } = options;
  if (signedOut !== "auto" && signedOut !== "json" && signedOut !== "redirect") {
    throw new TypeError('requireAuth: signedOut must be "auto", "json" or "redirect"');
  }
  if (redirectTo !== undefined && sameSitePath(redirectTo) === undefined) {
    throw new TypeError('requireAuth: redirectTo must be a path on this site, such as "/welcome"');
  }
  return createMiddleware<SignedInEnv>(async (c, next) => {
    const read = sessionReadOf(c);
    if (!read) {
      throw new Error(
        "requireAuth() reads the session of gatehouse() or authSession(): register one of them before it",
      );
    }
    if (read.session?.user) {
      // The variables already hold this session: the type only narrows them.
      c.set("session", read.session as SessionWithUser);
      await next();
      return;
    }
    const request = c.req.raw;
    const page = signedOut === "redirect" || (signedOut === "auto" && isPage(request));
    if (!page) return c.json(unauthenticated, 401, noStore);
    if (redirectTo !== undefined) return redirectResponse(redirectTo);
    return signInRedirect(request, read.config);
  });
}
