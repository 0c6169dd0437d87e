/**
 * The revocation store for JWT sessions on PostgreSQL: three small tables of its own, a check
 * that is one indexed query.
 */
import type { RevocationSessionRecord, RevocationStore } from "@gatehousejs/core/types";
import {
  isNodePostgres,
  type PostgresOptions,
  type Queryable,
  quoteSchema,
  type Row,
  rowsOf,
  serialized,
} from "./client.js";

/** What {@link PostgresRevocationStore} returns: the whole store contract, its tables' DDL and pruning. */
export interface PostgresRevocationStoreMethods extends Required<RevocationStore> {
  /** Creates the store's tables and indexes unless they exist. Safe to run on every start. */
  migrate(): Promise<void>;
  /**
   * Deletes the entries of sessions that have expired. Expired entries are never consulted, so
   * this only reclaims space: run it now and then (a daily job).
   */
  prune(): Promise<void>;
}

/** The store's DDL for the quoted schema `s`. */
function statements(s: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${s}."revoked_sessions" (
  "userId"    text NOT NULL,
  "sessionId" text NOT NULL,
  "expires"   timestamptz NOT NULL,
  PRIMARY KEY ("userId", "sessionId")
)`,
    `CREATE TABLE IF NOT EXISTS ${s}."revocation_epochs" (
  "userId"  text PRIMARY KEY,
  "at"      bigint NOT NULL,
  "except"  text,
  "expires" timestamptz NOT NULL
)`,
    `CREATE TABLE IF NOT EXISTS ${s}."jwt_sessions" (
  "userId"       text NOT NULL,
  "sessionId"    text NOT NULL,
  "expires"      timestamptz NOT NULL,
  "createdAt"    timestamptz,
  "lastSeenAt"   timestamptz,
  "provider"     text,
  "providerType" text,
  "client"       text,
  "ip"           text,
  "providerSid"  text,
  PRIMARY KEY ("userId", "sessionId")
)`,
    // Federated logout (docs/tokens.md, "Federated logout"): tables created before it gain the provider's session id.
    `ALTER TABLE ${s}."jwt_sessions" ADD COLUMN IF NOT EXISTS "providerSid" text`,
  ];
}

/** The session id core gives a JWT without a `sid` (one issued by Auth.js or before sids). */
const LEGACY_SESSION_ID = "legacy";

const RECORD_COLUMNS = [
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

const dateOrNull = (value: unknown): Date | null =>
  value === null || value === undefined
    ? null
    : value instanceof Date
      ? value
      : new Date(String(value));
const textOrNull = (value: unknown): string | null =>
  value === null || value === undefined ? null : String(value);

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
 * A {@link RevocationStore} on PostgreSQL: revocations are shared by every process that uses the
 * database and survive restarts. `check` is one query over two primary keys; entries are ignored
 * once the sessions they concern have expired, and {@link PostgresRevocationStoreMethods.prune}
 * deletes them. The tables (`revoked_sessions`, `revocation_epochs`, `jwt_sessions`) live in
 * `options.schema` (default `public`), beside the adapter's if you use it; create them with
 * `migrate()`.
 *
 * @example
 * ```ts
 * import type { AuthConfig } from "@gatehousejs/core";
 * import { PostgresRevocationStore } from "@gatehousejs/pg-adapter";
 * import { Pool } from "pg";
 *
 * const pool = new Pool({ connectionString: process.env.DATABASE_URL });
 * const store = PostgresRevocationStore(pool);
 * await store.migrate();
 * const config = {
 *   secret: process.env.AUTH_SECRET,
 *   providers: [],
 *   session: { strategy: "jwt", revocation: { store } },
 * } satisfies AuthConfig;
 * ```
 */
export function PostgresRevocationStore(
  client: Queryable,
  options: PostgresOptions = {},
): PostgresRevocationStoreMethods {
  const schema = options.schema ?? "public";
  const s = quoteSchema(schema);
  const revoked = `${s}."revoked_sessions"`;
  const epochs = `${s}."revocation_epochs"`;
  const records = `${s}."jwt_sessions"`;

  const named = isNodePostgres(client);
  const queue = serialized(client);
  const run = (sql: string, params?: unknown[]) => rowsOf(queue, sql, params, named);

  // Revoked by id, or issued at or before the user's epoch and not its exception. Both lookups
  // are primary-key probes; an expired entry counts for nothing. Every token without a sid
  // shares the id 'legacy' (an epoch written by an older Gatehouse may name it): it is never
  // the exception.
  const check = `SELECT EXISTS (
  SELECT 1 FROM ${revoked} WHERE "userId" = $1 AND "sessionId" = $2 AND "expires" > now()
) OR EXISTS (
  SELECT 1 FROM ${epochs} WHERE "userId" = $1 AND "at" >= $3
    AND ("except" IS DISTINCT FROM $2 OR $2 = '${LEGACY_SESSION_ID}') AND "expires" > now()
) AS "revoked"`;

  const list = `SELECT r.* FROM ${records} r
LEFT JOIN ${epochs} e ON e."userId" = r."userId" AND e."expires" > now()
WHERE r."userId" = $1 AND r."expires" > now()
  AND NOT EXISTS (
    SELECT 1 FROM ${revoked} v
    WHERE v."userId" = r."userId" AND v."sessionId" = r."sessionId" AND v."expires" > now()
  )
  AND (
    e."userId" IS NULL OR r."sessionId" = e."except"
    OR COALESCE(floor(extract(epoch FROM r."createdAt")), 0) > e."at"
  )
ORDER BY r."createdAt" ASC NULLS LAST, r."sessionId"`;

  return {
    async migrate() {
      const body = statements(s)
        .map((sql) => `  ${sql.replaceAll("\n", "\n  ")};`)
        .join("\n");
      // One statement under an advisory lock, as the adapter's migrate: several processes may
      // start at once. `schema` matched a strict pattern, so it is safe inside the literal.
      await client.query(`DO $gatehouse$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('@gatehousejs/pg-adapter revocation migrate'));
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_namespace WHERE nspname = '${schema}') THEN
    CREATE SCHEMA IF NOT EXISTS ${s};
  END IF;
${body}
END
$gatehouse$`);
    },
    async check({ userId, sessionId, issuedAt }) {
      const rows = await run(check, [userId, sessionId, issuedAt]);
      return rows[0]?.revoked === true;
    },
    async revokeSession({ userId, sessionId, expires }) {
      await run(
        `WITH forgotten AS (
  DELETE FROM ${records} WHERE "userId" = $1 AND "sessionId" = $2
)
INSERT INTO ${revoked} ("userId", "sessionId", "expires") VALUES ($1, $2, $3)
ON CONFLICT ("userId", "sessionId")
DO UPDATE SET "expires" = GREATEST(${revoked}."expires", EXCLUDED."expires")`,
        [userId, sessionId, expires],
      );
    },
    async revokeUser({ userId, at, except, expires }) {
      // The epoch only moves forward; the exception is the latest revocation's.
      await run(
        `WITH forgotten AS (
  DELETE FROM ${records} WHERE "userId" = $1 AND "sessionId" IS DISTINCT FROM $3
)
INSERT INTO ${epochs} ("userId", "at", "except", "expires") VALUES ($1, $2, $3, $4)
ON CONFLICT ("userId") DO UPDATE SET
  "at" = GREATEST(${epochs}."at", EXCLUDED."at"),
  "except" = EXCLUDED."except",
  "expires" = GREATEST(${epochs}."expires", EXCLUDED."expires")`,
        [userId, Math.floor(at), except ?? null, expires],
      );
    },
    async recordSession(record) {
      if (record.expires.valueOf() <= Date.now()) return;
      const placeholders = RECORD_COLUMNS.map((_, i) => `$${i + 1}`).join(", ");
      // A field left undefined (the provider, when a re-issued token is recorded) keeps its value.
      const updates = RECORD_COLUMNS.slice(2)
        .filter((c) => record[c] !== undefined)
        .map((c) => `"${c}" = EXCLUDED."${c}"`)
        .join(", ");
      await run(
        `INSERT INTO ${records} (${RECORD_COLUMNS.map((c) => `"${c}"`).join(", ")})
VALUES (${placeholders})
ON CONFLICT ("userId", "sessionId") DO UPDATE SET ${updates}`,
        RECORD_COLUMNS.map((column) => record[column] ?? null),
      );
    },
    async listSessions(userId) {
      return (await run(list, [userId])).map(toRecord);
    },
    async prune() {
      await run(`DELETE FROM ${revoked} WHERE "expires" <= now()`);
      await run(`DELETE FROM ${epochs} WHERE "expires" <= now()`);
      await run(`DELETE FROM ${records} WHERE "expires" <= now()`);
    },
  };
}
