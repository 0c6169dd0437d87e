/**
 * Reading the session on the server: `getSession()` for any code with a request, and
 * `requireSession()` for a protected query. The SolidStart part is the request event: the
 * response a renewed cookie goes to, and whether a request is a server function call.
 */

import {
  appendCookies,
  assertSignedOutRedirect,
  readSession,
  redirectResponse,
  type SignedOutRedirect,
  signInRedirect,
} from "@gatehousejs/core/integration";
import type { Session } from "@gatehousejs/core/types";
import type { SolidAuthConfig } from "./handler.js";
import { currentEvent } from "./request-event.js";

/** A session that names its user: what {@link requireSession} returns. */
export type SessionWithUser = Session & { user: NonNullable<Session["user"]> };

/** Options of {@link requireSession}: where a visitor without a session goes. */
export interface RequireSessionOptions extends SignedOutRedirect {
  /**
   * With `signIn: true`, the page to come back to after signing in: a path on this site such as
   * `"/account?tab=keys"` (anything else is ignored). Default: the page being server-rendered;
   * on client navigation, where the query runs as a server function, the page the browser was on
   * (its same-site `Referer`), since the server function's request does not name the new page.
   */
  callbackUrl?: string;
}

/**
 * The session of a request, exactly as `GET <prefix>/session` would answer it, or `null`.
 * Computed in-process with the configuration of the auth route (same prefix, environment and
 * callbacks; pass the same `config` object so its core configuration is built once).
 *
 * Inside a SolidStart request (a server-rendered page, a `"use server"` function), a session
 * cookie the check re-issues (rolling expiry, `session.updateAge`) or deletes is appended to that
 * request's response, so sessions keep rolling on server-rendered pages. On a streamed page this
 * works while the headers are not yet sent: read the session in a query the page waits for
 * (`createAsync(..., { deferStream: true })`).
 *
 * @example
 * ```ts
 * import { getSession, type SolidAuthConfig } from "@gatehousejs/solid-start";
 *
 * declare const authConfig: SolidAuthConfig;
 * declare const request: Request;
 * const session = await getSession(request, authConfig);
 * const name = session?.user?.name ?? "guest";
 * ```
 */
export async function getSession(
  request: Request,
  config: SolidAuthConfig,
): Promise<Session | null> {
  const event = await currentEvent();
  return readSession(request, config, (cookies) => appendCookies(event, cookies));
}

/**
 * Whether a request is a SolidStart server function call (a query or action run from the
 * browser) rather than a page: SolidStart's client names the function in `X-Server-Id` and
 * posts to `/_server`.
 */
function isServerFunctionCall(request: Request): boolean {
  if (request.headers.has("x-server-id")) return true;
  try {
    const path = new URL(request.url).pathname;
    return path === "/_server" || path.startsWith("/_server/");
  } catch {
    return false;
  }
}

/**
 * The session of the current SolidStart request, or a thrown redirect when there is none or it
 * has no `user`: to `/` by default, to `redirectTo`, or with `signIn: true` to the sign-in page
 * with `callbackUrl` set to the page, so the visitor comes back to it after signing in. Call it
 * first thing in a `"use server"` function wrapped in `query()`: the router follows the thrown
 * redirect, on the server-rendered page and on client navigation alike.
 *
 * Throws an `Error` when called outside a SolidStart request, and a `TypeError` when
 * `redirectTo` and `signIn` are both set.
 *
 * @example
 * ```ts
 * import { requireSession, type SolidAuthConfig } from "@gatehousejs/solid-start";
 * import { query } from "@solidjs/router";
 *
 * declare const authConfig: SolidAuthConfig;
 * export const accountQuery = query(async () => {
 *   "use server";
 *   // Signed out: to /api/auth/signin?callbackUrl=%2Faccount, and back here after signing in.
 *   const session = await requireSession(authConfig, { signIn: true });
 *   return { name: session.user.name ?? null };
 * }, "account");
 * ```
 */
export async function requireSession(
  config: SolidAuthConfig,
  options: RequireSessionOptions = {},
): Promise<SessionWithUser> {
  assertSignedOutRedirect("requireSession", options);
  const event = await currentEvent();
  if (!event) {
    throw new Error(
      'requireSession() runs only inside a SolidStart request: call it from a "use server" function',
    );
  }
  const session = await readSession(event.request, config, (cookies) =>
    appendCookies(event, cookies),
  );
  if (session?.user) return session as SessionWithUser;
  if (options.signIn) {
    throw signInRedirect(event.request, config, {
      callbackUrl: options.callbackUrl,
      serverFunction: isServerFunctionCall(event.request),
    });
  }
  throw redirectResponse(options.redirectTo ?? "/");
}
