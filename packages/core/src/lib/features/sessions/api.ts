/**
 * The server API of session management: framework-neutral functions an app calls with its
 * `AuthConfig` and a user id it trusts (from its own session check, an admin screen, a password
 * change). They never take a session token; sessions are named by their public ids. Their code
 * (./manage.ts) loads on the first call: importing the package does not load it.
 */
import { resolveConfig } from "../../config.js";
import type { AuthConfig } from "../../types/config.js";
import type { SessionInfo } from "./options.js";

const manage = () => import("./manage.js");

const validUserId = (userId: unknown): userId is string =>
  typeof userId === "string" && userId !== "";

/**
 * The user's live sessions, newest activity first (`current` is always false here: there is no
 * request). Under the database strategy the adapter needs `listSessionsByUserId`; under the JWT
 * strategy these are the sessions the revocation store recorded (none without one).
 *
 * @example
 * ```ts
 * const sessions = await listSessions(config, userId);
 * for (const s of sessions) console.log(s.id, s.client, s.lastSeenAt);
 * ```
 */
export async function listSessions(config: AuthConfig, userId: string): Promise<SessionInfo[]> {
  if (!validUserId(userId)) return [];
  return (await manage()).listUserSessions(resolveConfig(config), userId);
}

/**
 * Ends one session of the user, by its public id (`SessionInfo.id`). Resolves to `true` when a
 * session ended, `false` when the user has no session with that id (another user's included).
 * Under the JWT strategy it needs `session.revocation` and throws an `AuthError` without it.
 *
 * @example
 * ```ts
 * const ended = await revokeSession(config, userId, sessionId);
 * ```
 */
export async function revokeSession(
  config: AuthConfig,
  userId: string,
  sessionId: string,
): Promise<boolean> {
  if (!validUserId(userId)) return false;
  const resolved = resolveConfig(config);
  return (await manage()).revokeUserSession(resolved, userId, sessionId, {
    source: resolved,
    reason: "revokedByServer",
  });
}

/** Options of {@link revokeUserSessions}. */
export interface RevokeUserSessionsOptions {
  /**
   * The public id of a session to keep (the one the user is using). `"legacy"` keeps nothing: it
   * is the id every JWT without a `sid` shares, so the caller's session ends too.
   */
  except?: string;
}

/**
 * Ends every session of the user, but `except` when given: after a password change, a ban, or
 * "sign out everywhere". Resolves to how many sessions ended (under the JWT strategy, how many the
 * revocation store had recorded; every one ends, recorded or not). Under the JWT strategy it needs
 * `session.revocation` and throws an `AuthError` without it.
 *
 * @example
 * ```ts
 * // After a password change, keep only the session that changed it.
 * await revokeUserSessions(config, userId, { except: currentSessionId });
 * ```
 */
export async function revokeUserSessions(
  config: AuthConfig,
  userId: string,
  options: RevokeUserSessionsOptions = {},
): Promise<number> {
  if (!validUserId(userId)) return 0;
  const resolved = resolveConfig(config);
  return (await manage()).revokeAllUserSessions(resolved, userId, options.except, {
    source: resolved,
    reason: "revokedAllByServer",
  });
}
