/**
 * The revocation store of JWT sessions: three tables of its own (`revoked_sessions`,
 * `revocation_epochs`, `jwt_sessions`), a check that is two primary-key lookups.
 */
import type { RevocationSessionRecord, RevocationStore } from "@gatehousejs/core/types";
import { and, eq, gt, lte, ne } from "drizzle-orm";
import type { DrizzleDatabase } from "./dialect.js";
import { dateOrNull, type Row, textOrNull } from "./rows.js";
import { type DrizzleStoreOptions, guardedStore, storeContext } from "./stores.js";
import { column, columnsOf, fieldsOf } from "./tables.js";

/** What {@link DrizzleRevocationStore} returns: the whole store contract, and pruning. */
export interface DrizzleRevocationStoreMethods extends Required<RevocationStore> {
  /**
   * Deletes the entries of sessions that have expired. Expired entries are never consulted, so
   * this only reclaims space: run it now and then (a daily job).
   */
  prune(): Promise<void>;
}

/** The session id core gives a JWT without a `sid` (one issued by Auth.js or before sids). */
const LEGACY_SESSION_ID = "legacy";

const RECORD_FIELDS = [
  "userId",
  "sessionId",
  "expires",
  "createdAt",
  "lastSeenAt",
  "provider",
  "providerType",
  "client",
  "ip",
  "providerSid",
] as const;

function toRecord(row: Row): RevocationSessionRecord {
  return {
    userId: String(row.userId),
    sessionId: String(row.sessionId),
    expires: dateOrNull(row.expires) ?? new Date(0),
    createdAt: dateOrNull(row.createdAt),
    lastSeenAt: dateOrNull(row.lastSeenAt),
    provider: textOrNull(row.provider),
    providerType: textOrNull(row.providerType),
    client: textOrNull(row.client),
    ip: textOrNull(row.ip),
    // Left out when none was recorded, as records from before federated logout have none.
    ...(row.providerSid === null || row.providerSid === undefined
      ? {}
      : { providerSid: String(row.providerSid) }),
  };
}

/**
 * A {@link RevocationStore} over a Drizzle database (PostgreSQL, MySQL/MariaDB, SQLite):
 * revocations are shared by every process that uses the database and survive restarts. Entries
 * are ignored once the sessions they concern have expired, and
 * {@link DrizzleRevocationStoreMethods.prune} deletes them. Create its tables with
 * `npx gatehouse migrate` (feature `revocation`).
 *
 * @example
 * ```ts
 * import type { AuthConfig } from "@gatehousejs/core";
 * import { DrizzleRevocationStore } from "@gatehousejs/drizzle-adapter";
 * import { drizzle } from "drizzle-orm/node-postgres";
 *
 * const db = drizzle(process.env.DATABASE_URL ?? "");
 * const config = {
 *   secret: process.env.AUTH_SECRET,
 *   providers: [],
 *   session: { strategy: "jwt", revocation: { store: DrizzleRevocationStore(db) } },
 * } satisfies AuthConfig;
 * ```
 */
export function DrizzleRevocationStore(
  database: DrizzleDatabase,
  options: DrizzleStoreOptions = {},
): DrizzleRevocationStoreMethods {
  const ctx = storeContext(database, options);
  const { db, t } = ctx;
  const r = {
    userId: column(t.revokedSessions, "userId"),
    sessionId: column(t.revokedSessions, "sessionId"),
    expires: column(t.revokedSessions, "expires"),
  };
  const e = {
    userId: column(t.revocationEpochs, "userId"),
    at: column(t.revocationEpochs, "at"),
    except: column(t.revocationEpochs, "except"),
    expires: column(t.revocationEpochs, "expires"),
  };
  const j = {
    userId: column(t.jwtSessions, "userId"),
    sessionId: column(t.jwtSessions, "sessionId"),
    expires: column(t.jwtSessions, "expires"),
  };
  const recordFields = fieldsOf(t.jwtSessions, RECORD_FIELDS);
  const recordColumns = columnsOf(t.jwtSessions);

  /** An upsert: insert `values`, or on the key `target` update with `set`. */
  const upsert = (table: typeof t.revokedSessions, values: Row, target: unknown[], set: Row) =>
    ctx.dialect === "mysql"
      ? db.insert(table).values(values).onDuplicateKeyUpdate({ set })
      : db.insert(table).values(values).onConflictDoUpdate({ target, set });

  /** The user's epoch and revoked ids, live at `now`. */
  async function revocationsOf(userId: string, now: Date) {
    const [epochs, revoked] = await Promise.all([
      db
        .select({ at: e.at, except: e.except })
        .from(t.revocationEpochs)
        .where(and(eq(e.userId, userId), gt(e.expires, now))),
      db
        .select({ sessionId: r.sessionId })
        .from(t.revokedSessions)
        .where(and(eq(r.userId, userId), gt(r.expires, now))),
    ]);
    const epoch = epochs[0];
    return {
      ids: new Set(revoked.map((row) => String(row.sessionId))),
      // Revoked by the epoch: issued at or before it and not its exception ('legacy' never is).
      byEpoch: (sessionId: string, issuedAt: number) =>
        epoch !== undefined &&
        Number(epoch.at) >= issuedAt &&
        (epoch.except !== sessionId || sessionId === LEGACY_SESSION_ID),
    };
  }

  const store: DrizzleRevocationStoreMethods = {
    async check({ userId, sessionId, issuedAt }) {
      const now = new Date();
      const [revoked, epochs] = await Promise.all([
        db
          .select({ sessionId: r.sessionId })
          .from(t.revokedSessions)
          .where(and(eq(r.userId, userId), eq(r.sessionId, sessionId), gt(r.expires, now)))
          .limit(1),
        db
          .select({ at: e.at, except: e.except })
          .from(t.revocationEpochs)
          .where(and(eq(e.userId, userId), gt(e.expires, now)))
          .limit(1),
      ]);
      if (revoked.length > 0) return true;
      const epoch = epochs[0];
      return (
        epoch !== undefined &&
        Number(epoch.at) >= issuedAt &&
        (epoch.except !== sessionId || sessionId === LEGACY_SESSION_ID)
      );
    },
    async revokeSession({ userId, sessionId, expires }) {
      await db.delete(t.jwtSessions).where(and(eq(j.userId, userId), eq(j.sessionId, sessionId)));
      await upsert(t.revokedSessions, { userId, sessionId, expires }, [r.userId, r.sessionId], {
        expires: ctx.greatest(r.expires, ctx.proposed(r.expires)),
      });
    },
    async revokeUser({ userId, at, except, expires }) {
      await db
        .delete(t.jwtSessions)
        .where(except ? and(eq(j.userId, userId), ne(j.sessionId, except)) : eq(j.userId, userId));
      // The epoch only moves forward; the exception is the latest revocation's.
      await upsert(
        t.revocationEpochs,
        { userId, at: Math.floor(at), except: except ?? null, expires },
        [e.userId],
        {
          at: ctx.greatest(e.at, ctx.proposed(e.at)),
          except: ctx.proposed(e.except),
          expires: ctx.greatest(e.expires, ctx.proposed(e.expires)),
        },
      );
    },
    async recordSession(record) {
      if (record.expires.valueOf() <= Date.now()) return;
      const values = Object.fromEntries(RECORD_FIELDS.map((f) => [f, record[f] ?? null]));
      // A field left undefined (the provider, when a re-issued token is recorded) keeps its value.
      const set = Object.fromEntries(
        RECORD_FIELDS.slice(2)
          .filter((f) => record[f] !== undefined && recordColumns[f])
          .map((f) => [f, ctx.proposed(recordColumns[f]!)]),
      );
      await upsert(t.jwtSessions, values, [j.userId, j.sessionId], set);
    },
    async listSessions(userId) {
      const now = new Date();
      const [rows, revocations] = await Promise.all([
        db
          .select(recordFields)
          .from(t.jwtSessions)
          .where(and(eq(j.userId, userId), gt(j.expires, now))),
        revocationsOf(userId, now),
      ]);
      return rows
        .map(toRecord)
        .filter((record) => {
          const issuedAt = Math.floor((record.createdAt?.valueOf() ?? 0) / 1000);
          return (
            !revocations.ids.has(record.sessionId) &&
            !revocations.byEpoch(record.sessionId, issuedAt)
          );
        })
        .sort(
          (a, b) =>
            (a.createdAt?.valueOf() ?? Number.POSITIVE_INFINITY) -
              (b.createdAt?.valueOf() ?? Number.POSITIVE_INFINITY) ||
            (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0),
        );
    },
    async prune() {
      const now = new Date();
      await db.delete(t.revokedSessions).where(lte(r.expires, now));
      await db.delete(t.revocationEpochs).where(lte(e.expires, now));
      await db.delete(t.jwtSessions).where(lte(j.expires, now));
    },
  };
  return guardedStore(store);
}
