/**
 * A revocation store that keeps everything in this process's memory: for tests, prototypes and
 * single-process servers. Revocations do not survive a restart and are not shared between
 * processes; use the Redis or PostgreSQL store for that.
 */
import { LEGACY_SESSION_ID } from "../../session/ids.js";
import type { RevocationSessionRecord, RevocationStore } from "./options.js";

/** What {@link MemoryRevocationStore} returns: the store contract, plus a reset for tests. */
export interface InMemoryRevocationStore extends Required<RevocationStore> {
  /** Forgets every revocation and every recorded session. */
  clear(): void;
}

interface Epoch {
  at: number;
  except: string | undefined;
  expires: number;
}

/**
 * Creates an in-memory {@link RevocationStore}. Entries are forgotten once the sessions they
 * concern have expired, so memory stays bounded by the number of live sessions.
 *
 * @example
 * ```ts
 * import { MemoryRevocationStore } from "@gatehousejs/core/revocation/memory";
 *
 * const config = {
 *   session: { strategy: "jwt" as const, revocation: { store: MemoryRevocationStore() } },
 * };
 * ```
 */
export function MemoryRevocationStore(): InMemoryRevocationStore {
  const epochs = new Map<string, Epoch>();
  // userId → sessionId → expiry (ms) of a revoked session.
  const revoked = new Map<string, Map<string, number>>();
  const records = new Map<string, Map<string, RevocationSessionRecord>>();
  let writes = 0;

  /** Drops expired entries, every 256 writes: enough to keep memory bounded, cheap per write. */
  function sweep(now: number): void {
    if (++writes % 256 !== 0) return;
    for (const [userId, epoch] of epochs) if (epoch.expires <= now) epochs.delete(userId);
    for (const [userId, ids] of revoked) {
      for (const [id, expires] of ids) if (expires <= now) ids.delete(id);
      if (ids.size === 0) revoked.delete(userId);
    }
    for (const [userId, sessions] of records) {
      for (const [id, record] of sessions) if (record.expires.valueOf() <= now) sessions.delete(id);
      if (sessions.size === 0) records.delete(userId);
    }
  }

  function isRevoked(userId: string, sessionId: string, issuedAt: number, now: number): boolean {
    const expires = revoked.get(userId)?.get(sessionId);
    if (expires !== undefined && expires > now) return true;
    const epoch = epochs.get(userId);
    return (
      epoch !== undefined &&
      epoch.expires > now &&
      epoch.at >= issuedAt &&
      // Every token without a sid shares the id "legacy": an exception naming it spares none.
      (epoch.except !== sessionId || sessionId === LEGACY_SESSION_ID)
    );
  }

  return {
    async check({ userId, sessionId, issuedAt }) {
      return isRevoked(userId, sessionId, issuedAt, Date.now());
    },
    async revokeSession({ userId, sessionId, expires }) {
      const now = Date.now();
      const ids = revoked.get(userId) ?? new Map<string, number>();
      revoked.set(userId, ids);
      ids.set(sessionId, Math.max(expires.valueOf(), ids.get(sessionId) ?? 0));
      records.get(userId)?.delete(sessionId);
      sweep(now);
    },
    async revokeUser({ userId, at, except, expires }) {
      const now = Date.now();
      const previous = epochs.get(userId);
      epochs.set(userId, {
        at: Math.max(at, previous?.at ?? 0),
        except,
        expires: Math.max(expires.valueOf(), previous?.expires ?? 0),
      });
      const sessions = records.get(userId);
      if (sessions) for (const id of sessions.keys()) if (id !== except) sessions.delete(id);
      sweep(now);
    },
    async recordSession(record) {
      const now = Date.now();
      if (record.expires.valueOf() <= now) return;
      const sessions = records.get(record.userId) ?? new Map<string, RevocationSessionRecord>();
      records.set(record.userId, sessions);
      // Fields left undefined (the provider, when a re-issued token is recorded) keep their value.
      const previous = sessions.get(record.sessionId);
      const given = Object.entries(record).filter(([, value]) => value !== undefined);
      sessions.set(
        record.sessionId,
        structuredClone({ ...previous, ...Object.fromEntries(given) }) as RevocationSessionRecord,
      );
      sweep(now);
    },
    async listSessions(userId) {
      const now = Date.now();
      const sessions = records.get(userId);
      if (!sessions) return [];
      const live: RevocationSessionRecord[] = [];
      for (const record of sessions.values()) {
        const issuedAt = Math.floor((record.createdAt?.valueOf() ?? 0) / 1000);
        if (record.expires.valueOf() > now && !isRevoked(userId, record.sessionId, issuedAt, now)) {
          live.push(structuredClone(record));
        }
      }
      return live;
    },
    clear() {
      epochs.clear();
      revoked.clear();
      records.clear();
    },
  };
}
