/**
 * `listSecurityEvents`: a user's security activity as the app shows it (docs/security-log.md).
 */
import { resolveConfig } from "../../config.js";
import { AuthError } from "../../errors.js";
import type { AuthConfig } from "../../types/config.js";
import type { SecurityEvent } from "./options.js";

/** The log's code (./log.ts), loaded by the first call: importing the package does not load it. */
const logCode = () => import("./log.js");

/** Options of {@link listSecurityEvents}. */
export interface ListSecurityEventsOptions {
  /** At most this many events, 1 to 1000. Default 50. */
  limit?: number;
  /** Only events strictly before this time: pass the `at` of the last event of a page for the next. */
  before?: Date;
}

/**
 * A user's security activity, newest first: sign-ins (with the method, the provider and whether
 * the client was new), failed sign-ins, sign-outs, revoked sessions, linked accounts and verified
 * email addresses. Events older than the retention (`securityLog.retentionDays`, default 90) are
 * left out.
 *
 * Throws an `AuthError` when the configuration has no `securityLog`, a `TypeError` for a `limit`
 * or `before` out of range, and the store's error when it fails.
 *
 * @example
 * ```ts
 * const events = await listSecurityEvents(config, session.user.id, { limit: 20 });
 * const next = await listSecurityEvents(config, session.user.id, { before: events.at(-1)?.at });
 * ```
 */
export async function listSecurityEvents(
  config: AuthConfig,
  userId: string,
  options: ListSecurityEventsOptions = {},
): Promise<SecurityEvent[]> {
  const resolved = resolveConfig(config);
  const log = resolved.source.securityLog;
  if (!log) {
    throw new AuthError("listSecurityEvents needs config.securityLog: the security log is off");
  }
  const limit = options.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new TypeError("listSecurityEvents: limit must be an integer from 1 to 1000");
  }
  const before = options.before;
  if (before !== undefined && !(before instanceof Date && Number.isFinite(before.getTime()))) {
    throw new TypeError("listSecurityEvents: before must be a valid Date");
  }
  if (typeof userId !== "string" || userId === "") return [];
  const { pruneQuietly, retentionMs } = await logCode();
  await pruneQuietly(resolved, log);
  const oldest = Date.now() - retentionMs(log);
  const events = await log.store.list(userId, before ? { limit, before } : { limit });
  return events.filter((e) => e.at.getTime() >= oldest);
}
