/**
 * Reading the session on the server: `getSession()` for any code with a request, and
 * `requireSession()` for a protected query.
 */
import { getSession as coreGetSession } from "@gatehousejs/core";
import type { Session } from "@gatehousejs/core/types";
import { effectiveConfig, type SolidAuthConfig } from "./config.js";
import { redirectResponse } from "./redirect.js";
import { appendCookies, currentEvent, type ResponseHeadersHolder } from "./request-event.js";

/** A session that names its user: what {@link requireSession} returns. */
export type SessionWithUser = Session & { user: NonNullable<Session["user"]> };

/** Options of {@link requireSession}. */
export interface RequireSessionOptions {
  /** Where a visitor without a session is sent. Default `/`. */
  redirectTo?: string;
}

/** The session of `request`, with the cookies the check sets handed to `onCookies`. */
export async function sessionFor(
  request: Request,
  config: SolidAuthConfig,
  onCookies: (cookies: string[]) => void,
): Promise<Session | null> {
  return coreGetSession(request, effectiveConfig(config).core, { onCookies });
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
  const event: ResponseHeadersHolder | undefined = await currentEvent();
  return sessionFor(request, config, (cookies) => appendCookies(event, cookies));
}

/**
 * The session of the current SolidStart request, or a thrown redirect (`302` to `redirectTo`,
 * default `/`) when there is none or it has no `user`. Call it first thing in a `"use server"`
 * function wrapped in `query()`: the router follows the thrown redirect, on the server-rendered
 * page and on client navigation alike.
 *
 * Throws an `Error` when called outside a SolidStart request.
 *
 * @example
 * ```ts
 * import { requireSession, type SolidAuthConfig } from "@gatehousejs/solid-start";
 * import { query } from "@solidjs/router";
 *
 * declare const authConfig: SolidAuthConfig;
 * export const accountQuery = query(async () => {
 *   "use server";
 *   const session = await requireSession(authConfig, { redirectTo: "/signin" });
 *   return { name: session.user.name ?? null };
 * }, "account");
 * ```
 */
export async function requireSession(
  config: SolidAuthConfig,
  options?: RequireSessionOptions,
): Promise<SessionWithUser> {
  const event = await currentEvent();
  if (!event) {
    throw new Error(
      'requireSession() runs only inside a SolidStart request: call it from a "use server" function',
    );
  }
  const session = await sessionFor(event.request, config, (cookies) =>
    appendCookies(event, cookies),
  );
  if (!session?.user) throw redirectResponse(options?.redirectTo ?? "/");
  return session as SessionWithUser;
}
