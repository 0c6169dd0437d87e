/**
 * The session on the server: `getSession(req, res)` for any route, and `requireAuth()`, the
 * middleware of protected routes.
 */
import { readSession, sameSitePath, signInRedirect } from "@gatehousejs/core/integration";
import type { Session } from "@gatehousejs/core/types";
import type {
  Request as ExpressRequest,
  Response as ExpressResponse,
  NextFunction,
  RequestHandler,
} from "express";
import { configOf } from "./config.js";
import { sessionRequestOf } from "./request.js";
import { forwardCookies, sendResponse } from "./response.js";

/** A session that names its user: what `requireAuth()` leaves in `res.locals.session`. */
export type SessionWithUser = Session & { user: NonNullable<Session["user"]> };

declare global {
  namespace Express {
    interface Locals {
      /** The signed-in session, set by `requireAuth()` of `@gatehousejs/express`. */
      session?: SessionWithUser;
    }
  }
}

interface SessionRead {
  session: Session | null;
  /** The `Set-Cookie` values of the check: a renewed or cleared session cookie. */
  cookies: string[];
}

/** One read per request: `requireAuth()` and then the route's `getSession` share it. */
const reads = new WeakMap<ExpressRequest, Promise<SessionRead>>();

/**
 * The session of a request, exactly as `GET <prefix>/session` would answer it, or `null`. Read
 * in-process with the configuration of the `gatehouse(config)` router the request passed through
 * (mount it before the routes that call this). Read once per request: later calls, and
 * `requireAuth()` before them, share the answer.
 *
 * With `res`, a session cookie the check renews (rolling expiry, `session.updateAge`) or clears is
 * added to that response, so sessions keep rolling on pages the app renders; call it before the
 * response's headers are sent.
 *
 * Throws an `Error` when the request did not pass through a `gatehouse(config)` router.
 *
 * @example
 * ```ts
 * import { gatehouse, getSession } from "@gatehousejs/express";
 * import express from "express";
 *
 * const app = express();
 * app.use(gatehouse({ providers: [] }));
 * app.get("/", async (req, res) => {
 *   const session = await getSession(req, res);
 *   res.send(session?.user ? `Hello, ${session.user.name ?? "you"}` : "Hello, guest");
 * });
 * ```
 */
export async function getSession(
  req: ExpressRequest,
  res?: ExpressResponse,
): Promise<Session | null> {
  let read = reads.get(req);
  if (!read) {
    const config = configOf(req, "getSession");
    let cookies: string[] = [];
    read = readSession(sessionRequestOf(req), config, (set) => {
      cookies = set;
    }).then((session) => ({ session, cookies }));
    reads.set(req, read);
  }
  const { session, cookies } = await read;
  if (res) forwardCookies(res, cookies);
  return session;
}

/** Options of {@link requireAuth}. */
export interface RequireAuthOptions {
  /**
   * Where a signed-out visitor of a page goes: a path on this site, such as `"/welcome"`. Default:
   * the sign-in page, `<prefix>/signin?callbackUrl=<the page asked for>`, which comes back to the
   * page after signing in.
   */
  redirectTo?: string;
}

/**
 * Whether a request is a browser asking for a page, which is sent to sign in, rather than an API
 * call, which is answered `401`: a `GET` or `HEAD` whose `Accept` prefers HTML to JSON. A browser's
 * navigation says `text/html`; `fetch()` accepts anything by default, which counts as JSON here.
 */
function wantsPage(req: ExpressRequest): boolean {
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  return req.accepts(["json", "html"]) === "html";
}

/** The answer to a signed-out API call. */
function unauthenticated(res: ExpressResponse): void {
  res.status(401);
  res.setHeader("Cache-Control", "no-store");
  res.json({ error: "Unauthenticated", message: "Sign in first." });
}

/**
 * A middleware for protected routes. With a signed-in session it sets `res.locals.session` and
 * goes on; without one (or one without a `user`):
 *
 * - a page (a `GET` or `HEAD` whose `Accept` prefers HTML) is redirected (`302`) to the sign-in
 *   page with `callbackUrl` set to the page's path and query, so that signing in brings the
 *   visitor back, or to `redirectTo`;
 * - anything else (JSON, `fetch()`, a form post) is answered `401` with
 *   `{"error":"Unauthenticated","message":"Sign in first."}`.
 *
 * The `callbackUrl` is always a path of this site: a request path such as `//evil.example` is
 * read as the path `/evil.example`. A renewed or cleared session cookie goes on the response.
 *
 * Throws a `TypeError` when `redirectTo` is not a path of this site.
 *
 * @example
 * ```ts
 * import { gatehouse, requireAuth } from "@gatehousejs/express";
 * import express from "express";
 *
 * const app = express();
 * app.use(gatehouse({ providers: [] }));
 * app.get("/account", requireAuth(), (_req, res) => {
 *   res.send(`Signed in as ${res.locals.session?.user.email ?? "someone"}`);
 * });
 * ```
 */
export function requireAuth(options: RequireAuthOptions = {}): RequestHandler {
  const { redirectTo } = options;
  if (redirectTo !== undefined && sameSitePath(redirectTo) === undefined) {
    throw new TypeError('requireAuth: redirectTo must be a path of this site, such as "/welcome"');
  }
  return (req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
    protect(req, res, next, redirectTo).catch(next);
  };
}

async function protect(
  req: ExpressRequest,
  res: ExpressResponse,
  next: NextFunction,
  redirectTo: string | undefined,
): Promise<void> {
  const session = await getSession(req, res);
  if (session?.user) {
    res.locals.session = session as SessionWithUser;
    next();
    return;
  }
  if (!wantsPage(req)) {
    unauthenticated(res);
    return;
  }
  res.setHeader("Cache-Control", "no-store");
  if (redirectTo !== undefined) {
    res.redirect(302, redirectTo);
    return;
  }
  await sendResponse(signInRedirect(sessionRequestOf(req), configOf(req, "requireAuth")), res);
}
