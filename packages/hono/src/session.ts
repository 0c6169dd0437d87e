/**
 * `authSession()`: the session of each request read once, put on the context, and any cookie
 * the read renews or clears forwarded to the response.
 */
import { normalizePrefix, readSession, underPrefix } from "@gatehousejs/core/integration";
import type { Session } from "@gatehousejs/core/types";
import type { Context, MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import type { AuthEnv, HonoAuthConfig } from "./types.js";

/** What the session middleware read for a request, for `requireAuth()`. */
export interface SessionRead {
  config: HonoAuthConfig;
  session: Session | null;
}

/** The read of each request's context: one per request, and proof that the middleware ran. */
const reads = new WeakMap<Context, SessionRead>();

/** What {@link authSession} read for this context, or `undefined` when it did not run. */
export function sessionReadOf(c: Context): SessionRead | undefined {
  return reads.get(c);
}

/** The name of a `Set-Cookie` value. */
function cookieName(cookie: string): string {
  return cookie.slice(0, cookie.indexOf("=")).trim();
}

/**
 * Appends the cookies to the response, except those the response already sets: a handler that
 * set the session cookie itself (signing out, say) knows better than a renewal computed before
 * it ran.
 */
function forwardCookies(c: Context, cookies: readonly string[]): void {
  if (cookies.length === 0) return;
  const present = new Set(c.res.headers.getSetCookie().map(cookieName));
  for (const cookie of cookies) {
    if (present.has(cookieName(cookie))) continue;
    try {
      // Hono copies a finished response whose headers are immutable (one from `fetch`).
      c.header("Set-Cookie", cookie, { append: true });
    } catch {
      // A body already read: the session rolls on the next request.
      return;
    }
  }
}

/**
 * A middleware that reads the session of each request, exactly as `GET <prefix>/session` would
 * answer it, and puts it on the context: `c.get("session")` (or `null`) and `c.get("user")` (or
 * `null`), typed by {@link AuthEnv}. A session cookie the read re-issues (rolling expiry,
 * `session.updateAge`) or clears (invalid, expired) is appended to the response once the
 * handlers have answered, unless the response sets that cookie itself.
 *
 * The session is read once per request even when the middleware runs twice, and not at all for
 * the auth routes under the prefix. Each read decodes the session cookie, and with database
 * sessions asks the adapter: mount it on the paths that need the session (`app.use("/app/*",
 * ...)`) rather than on static files.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { authSession, type AuthEnv, type HonoAuthConfig } from "@gatehousejs/hono";
 *
 * declare const authConfig: HonoAuthConfig;
 * const app = new Hono<AuthEnv>();
 * app.use("/app/*", authSession(authConfig));
 * app.get("/app/hello", (c) => c.text(`Hello, ${c.get("user")?.name ?? "guest"}`));
 * ```
 */
export function authSession(config: HonoAuthConfig): MiddlewareHandler<AuthEnv> {
  const prefix = normalizePrefix(config.prefix);
  return createMiddleware<AuthEnv>(async (c, next) => {
    // The auth route decides by the URL's pathname too (`createAuthRoute`).
    if (reads.has(c) || underPrefix(new URL(c.req.url).pathname, prefix)) {
      await next();
      return;
    }
    let cookies: string[] = [];
    const session = await readSession(c.req.raw, config, (set) => {
      cookies = set;
    });
    reads.set(c, { config, session });
    c.set("session", session);
    c.set("user", session?.user ?? null);
    await next();
    forwardCookies(c, cookies);
  });
}
