/**
 * `listSessions()` and `revokeSessions()`: the signed-in user's own sessions, from the browser.
 */
import type { SessionInfo } from "../types.js";
import { basePathOf } from "./base-path.js";
import { type AuthRouteError, refusalOf, retryAfterOf } from "./errors.js";
import { fetchCsrfToken, sessionChanged } from "./transport.js";

/** Options of {@link listSessions} and {@link revokeSessions}. */
export interface SessionsOptions {
  /** The auth route's base path. Default: `configureClient`'s, else `/api/auth`. */
  basePath?: string;
}

/** Which sessions {@link revokeSessions} ends. */
export type RevokeSessionsTarget =
  /** One session, by the public `id` {@link listSessions} gave. */
  | { id: string }
  /** Every session of the user but the one making the request. */
  | { others: true }
  /** Every session of the user, this one included (its cookie is cleared). */
  | { all: true };

/** What {@link revokeSessions} resolves to. */
export interface RevokeSessionsResult {
  /** How many sessions were ended; 0 for an id that is unknown or not the user's. */
  revoked: number;
}

async function errorOf(response: Response, what: string): Promise<AuthRouteError> {
  const parsed: unknown = await response.json().catch(() => null);
  const body =
    typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  return refusalOf(
    what,
    { status: response.status, retryAfter: retryAfterOf(response, body) },
    body,
  );
}

function isSessionList(body: unknown): body is { sessions: SessionInfo[] } {
  if (typeof body !== "object" || body === null) return false;
  const { sessions } = body as { sessions?: unknown };
  return (
    Array.isArray(sessions) &&
    sessions.every(
      (item) =>
        typeof item === "object" &&
        item !== null &&
        typeof (item as { id?: unknown }).id === "string" &&
        typeof (item as { current?: unknown }).current === "boolean",
    )
  );
}

/**
 * The signed-in user's sessions (`GET <basePath>/sessions`), the current one marked with
 * `current: true`; `null` when nobody is signed in. Session ids are public ids, never tokens.
 * Under the JWT strategy the list holds the sessions the revocation store knows of (at least
 * the current one).
 *
 * @example
 * ```ts
 * import { listSessions } from "@gatehousejs/core/client";
 *
 * const sessions = await listSessions();
 * for (const session of sessions ?? []) {
 *   console.log(session.current ? "this device:" : "", session.client, session.lastSeenAt);
 * }
 * ```
 */
export async function listSessions(options: SessionsOptions = {}): Promise<SessionInfo[] | null> {
  const response = await fetch(`${basePathOf(options.basePath)}/sessions`, {
    headers: { Accept: "application/json" },
    credentials: "same-origin",
  });
  if (response.status === 401) return null;
  if (!response.ok) throw await errorOf(response, "for the sessions");
  const body: unknown = await response.json();
  if (!isSessionList(body)) throw new Error("The auth route's sessions answer is not a list");
  return body.sessions;
}

function bodyOf(target: RevokeSessionsTarget): Record<string, string | true> {
  if ("id" in target && typeof target.id === "string" && target.id !== "") return { id: target.id };
  if ("others" in target && target.others === true) return { others: true };
  if ("all" in target && target.all === true) return { all: true };
  throw new TypeError("revokeSessions takes { id }, { others: true } or { all: true }");
}

/**
 * Ends sessions of the signed-in user (`POST <basePath>/sessions/revoke`, with the CSRF token):
 * one by its `id`, all the others (`{ others: true }`: "sign out everywhere else"), or all of
 * them (`{ all: true }`, which signs this browser out too). Resolves with how many ended; an id
 * that is not one of the user's sessions ends nothing. Session sources that follow this client
 * (`createSessionSource`) refetch when this browser's own session may have ended.
 *
 * Rejects with an {@link AuthRouteError}: `Unauthenticated` (401) when nobody is signed in,
 * `BadRequest` for a target the route does not take, `SessionStoreUnavailable` (503, with
 * `retryAfter`) while the store is down, and, for `{ others: true }` and
 * `{ all: true }` of a user with two-factor sign-in on whose sign-in is older than ten minutes,
 * `ReauthenticationRequired` (403) with `signInUrl`: the sign-in page, coming back to the site's
 * root (send the browser there, then ask again). Ending one session by its `id` never needs it.
 *
 * @example
 * ```ts
 * import { AuthRouteError, revokeSessions } from "@gatehousejs/core/client";
 *
 * try {
 *   const { revoked } = await revokeSessions({ others: true });
 *   console.log(`Signed out of ${revoked} other sessions`);
 * } catch (error) {
 *   if (error instanceof AuthRouteError && error.signInUrl) location.assign(error.signInUrl);
 *   else throw error;
 * }
 * ```
 */
export async function revokeSessions(
  target: RevokeSessionsTarget,
  options: SessionsOptions = {},
): Promise<RevokeSessionsResult> {
  const body = bodyOf(target);
  const base = basePathOf(options.basePath);
  const csrfToken = await fetchCsrfToken(base);
  const response = await fetch(`${base}/sessions/revoke`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify({ ...body, csrfToken }),
    credentials: "same-origin",
  });
  if (!response.ok) throw await errorOf(response, "to the revocation");
  const answer = (await response.json().catch(() => null)) as { revoked?: unknown } | null;
  if (typeof answer?.revoked !== "number") {
    throw new Error("The auth route's revocation answer has no count");
  }
  // `{ all }` ends this browser's session; an `id` may have been this browser's own.
  if (!("others" in body) && answer.revoked > 0) sessionChanged();
  return { revoked: answer.revoked };
}
