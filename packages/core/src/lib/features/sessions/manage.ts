/**
 * Listing and ending a user's sessions, under either strategy: what the server API
 * (`listSessions`, `revokeSession`, `revokeUserSessions`) and the `sessions` HTTP actions run.
 *
 * Database sessions are rows: listing reads them (`listSessionsByUserId`), ending deletes them.
 * JWT sessions live in cookies: listing reads what the revocation store recorded, ending writes a
 * revocation the next check sees. Clients only ever see public session ids, never tokens.
 *
 * Every revocation is recorded in the security log (when it is on) as `sessionRevoked`, with the
 * reason the caller gives (`revokedByUser`, `signOutOthers`, `signOutEverywhere` from the HTTP
 * action; `revokedByServer`, `revokedAllByServer` from the server API).
 */
import { capabilitiesOf } from "../../capabilities.js";
import type { ResolvedConfig } from "../../config.js";
import { Context } from "../../context.js";
import { AuthError, MissingAdapterMethods } from "../../errors.js";
import { isSessionId, LEGACY_SESSION_ID, publicSessionId } from "../../session/ids.js";
import { giveLegacyTokenSessionId } from "../../session/jwt.js";
import type { AdapterSession } from "../../types/models.js";
import type { SessionMetadata } from "../../types/sessions.js";
import { recordSecurityEvent } from "../security-log/log.js";
import type { RevocationSessionRecord, RevocationStore, SessionInfo } from "./options.js";
import { forgetCachedChecks } from "./revocation.js";

const iso = (date: Date | null | undefined) => (date ? new Date(date).toISOString() : null);

/** Who asked for a revocation, for the security log: the request (its client) or the server. */
export interface RevocationCause {
  source: Context | ResolvedConfig;
  reason: string;
}

function logRevocation(
  cause: RevocationCause,
  userId: string,
  sessionId: string | null,
): Promise<void> {
  return recordSecurityEvent(cause.source, {
    type: "sessionRevoked",
    userId,
    sessionId,
    reason: cause.reason,
  });
}

/** A session as its user sees it; `current` is set by the HTTP action. */
export function sessionInfo(
  id: string,
  strategy: SessionInfo["strategy"],
  expires: Date | null,
  metadata: SessionMetadata,
): SessionInfo {
  return {
    id,
    current: false,
    strategy,
    createdAt: iso(metadata.createdAt),
    lastSeenAt: iso(metadata.lastSeenAt),
    expires: iso(expires),
    provider: metadata.provider ?? null,
    providerType: metadata.providerType ?? null,
    client: metadata.client ?? null,
    ip: metadata.ip ?? null,
  };
}

/** Newest activity first; sessions from before session records last. */
function byActivity(a: SessionInfo, b: SessionInfo): number {
  const time = (s: SessionInfo) => Date.parse(s.lastSeenAt ?? s.createdAt ?? "") || 0;
  return time(b) - time(a);
}

function sessionListing(config: ResolvedConfig) {
  const { listSessions } = capabilitiesOf(config);
  if (!listSessions) {
    throw new MissingAdapterMethods(
      "Listing and revoking database sessions needs the adapter method listSessionsByUserId",
    );
  }
  return listSessions;
}

/** The user's live database sessions, each with its public id. */
async function liveRows(
  config: ResolvedConfig,
  userId: string,
): Promise<Array<{ id: string; row: AdapterSession }>> {
  const rows = await sessionListing(config)(userId);
  const now = Date.now();
  const live = rows.filter((row) => row.userId === userId && row.expires.valueOf() > now);
  return Promise.all(
    live.map(async (row) => ({ id: await publicSessionId(row.sessionToken), row })),
  );
}

/** The revocation store, required to end a JWT session before it expires. */
function revocationStore(config: ResolvedConfig): RevocationStore {
  const store = config.session.revocation?.store;
  if (!store) {
    throw new AuthError(
      "JWT sessions can be revoked only with a revocation store: set session.revocation",
    );
  }
  return store;
}

async function recordedJwtSessions(
  config: ResolvedConfig,
  userId: string,
): Promise<RevocationSessionRecord[] | undefined> {
  const store = config.session.revocation?.store;
  if (!store?.listSessions) return undefined;
  const now = Date.now();
  return (await store.listSessions(userId)).filter(
    (r) => r.userId === userId && r.expires.valueOf() > now,
  );
}

/** The latest a JWT issued now can end: what a user-wide revocation must outlive. */
function latestJwtExpiry(config: ResolvedConfig): Date {
  const seconds = Math.max(config.session.maxAge, config.jwt.maxAge);
  return new Date(Date.now() + seconds * 1000);
}

/**
 * The user's live sessions, newest activity first. Under the JWT strategy, those the revocation
 * store recorded (none without a store, or with one that keeps no list).
 */
export async function listUserSessions(
  config: ResolvedConfig,
  userId: string,
): Promise<SessionInfo[]> {
  if (config.session.strategy === "database") {
    const rows = await liveRows(config, userId);
    return rows
      .map(({ id, row }) => sessionInfo(id, "database", row.expires, row))
      .sort(byActivity);
  }
  const records = (await recordedJwtSessions(config, userId)) ?? [];
  return records.map((r) => sessionInfo(r.sessionId, "jwt", r.expires, r)).sort(byActivity);
}

/**
 * Ends one of the user's sessions by its public id. True when it ended; false when the user has
 * no such session (another user's id included). Under the JWT strategy, with a store that keeps
 * no list, any well-formed id is revoked for this user (harmless for an id that is not theirs:
 * revocations are per user) and the answer is true.
 */
export async function revokeUserSession(
  config: ResolvedConfig,
  userId: string,
  sessionId: string,
  cause: RevocationCause,
): Promise<boolean> {
  if (!isSessionId(sessionId)) return false;
  if (config.session.strategy === "database") {
    const found = (await liveRows(config, userId)).find((s) => s.id === sessionId);
    if (!found) return false;
    await capabilitiesOf(config).deleteSession?.(found.row.sessionToken);
    await logRevocation(cause, userId, sessionId);
    return true;
  }
  const store = revocationStore(config);
  const records = await recordedJwtSessions(config, userId);
  let expires = latestJwtExpiry(config);
  if (records) {
    const found = records.find((r) => r.sessionId === sessionId);
    if (!found) return false;
    expires = found.expires;
  }
  await store.revokeSession({ userId, sessionId, expires });
  forgetCachedChecks(store);
  await logRevocation(cause, userId, sessionId);
  return true;
}

/**
 * Ends every session of the user but the one whose public id is `except`; returns how many ended
 * (under the JWT strategy, how many the store had recorded: every one ends, recorded or not).
 *
 * `legacy` names every JWT without a `sid` at once, so it never spares anything: when the request
 * that asks holds such a token of this user, that token is re-issued with a `sid` first and
 * spared by it; otherwise (the server API has no request) every session ends, the caller's too.
 */
export async function revokeAllUserSessions(
  config: ResolvedConfig,
  userId: string,
  except: string | undefined,
  cause: RevocationCause,
): Promise<number> {
  const ended = await endAll(config, userId, except, cause);
  await logRevocation(cause, userId, null);
  return ended;
}

async function endAll(
  config: ResolvedConfig,
  userId: string,
  except: string | undefined,
  cause: RevocationCause,
): Promise<number> {
  if (config.session.strategy === "database") {
    const can = capabilitiesOf(config);
    const rows = await liveRows(config, userId);
    const kept = except === undefined ? undefined : rows.find((s) => s.id === except);
    const ending = rows.filter((s) => s !== kept);
    if (can.deleteSessions) {
      const deleted = await can.deleteSessions(
        userId,
        kept ? { except: kept.row.sessionToken } : {},
      );
      return typeof deleted === "number" ? deleted : ending.length;
    }
    for (const { row } of ending) await can.deleteSession?.(row.sessionToken);
    return ending.length;
  }
  const store = revocationStore(config);
  const records = (await recordedJwtSessions(config, userId)) ?? [];
  const kept = except === LEGACY_SESSION_ID ? await keepLegacyCaller(cause, userId) : except;
  await store.revokeUser({
    userId,
    at: Math.floor(Date.now() / 1000),
    ...(kept === undefined ? {} : { except: kept }),
    expires: latestJwtExpiry(config),
  });
  forgetCachedChecks(store);
  return records.filter((r) => r.sessionId !== kept).length;
}

/** The new `sid` of the asking request's own token without one, re-issued at this response. */
async function keepLegacyCaller(
  cause: RevocationCause,
  userId: string,
): Promise<string | undefined> {
  if (!(cause.source instanceof Context)) return undefined;
  return (await giveLegacyTokenSessionId(cause.source, userId)) ?? undefined;
}
