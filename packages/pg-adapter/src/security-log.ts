/**
 * The security activity log on PostgreSQL: one table of its own, read newest first through an
 * index on (user, time).
 */
import type { SecurityEvent, SecurityEventStore, SecurityEventType } from "@gatehousejs/core/types";
import {
  isNodePostgres,
  type PostgresOptions,
  type Queryable,
  quoteSchema,
  type Row,
  rowsOf,
  serialized,
} from "./client.js";

/** What {@link PostgresSecurityEventStore} returns: the store contract and its migration. */
export interface PostgresSecurityEventStoreMethods extends SecurityEventStore {
  /** Creates the store's table and index unless they exist. Safe to run on every start. */
  migrate(): Promise<void>;
}

const COLUMNS = [
  "id",
  "userId",
  "type",
  "at",
  "provider",
  "providerType",
  "newClient",
  "client",
  "ip",
  "sessionId",
  "reason",
] as const;

/** The store's DDL for the quoted schema `s`. */
function statements(s: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${s}."security_events" (
  "id"           text PRIMARY KEY,
  "userId"       text NOT NULL,
  "type"         text NOT NULL,
  "at"           timestamptz NOT NULL,
  "provider"     text,
  "providerType" text,
  "newClient"    boolean,
  "client"       text,
  "ip"           text,
  "sessionId"    text,
  "reason"       text
)`,
    `CREATE INDEX IF NOT EXISTS "security_events_userId_at_idx" ON ${s}."security_events" ("userId", "at" DESC)`,
    `CREATE INDEX IF NOT EXISTS "security_events_at_idx" ON ${s}."security_events" ("at")`,
  ];
}

const textOrNull = (value: unknown): string | null =>
  value === null || value === undefined ? null : String(value);

function toEvent(row: Row): SecurityEvent {
  const at = row.at instanceof Date ? row.at : new Date(String(row.at));
  return {
    id: String(row.id),
    userId: String(row.userId),
    type: String(row.type) as SecurityEventType,
    at,
    provider: textOrNull(row.provider),
    providerType: textOrNull(row.providerType),
    newClient: typeof row.newClient === "boolean" ? row.newClient : null,
    client: textOrNull(row.client),
    ip: textOrNull(row.ip),
    sessionId: textOrNull(row.sessionId),
    reason: textOrNull(row.reason),
  };
}

/**
 * A {@link SecurityEventStore} on PostgreSQL, for `securityLog.store`. Give it a `pg` Pool (or
 * Client) or PGlite and run {@link PostgresSecurityEventStoreMethods.migrate} once at start.
 *
 * @example
 * ```ts
 * import { PostgresSecurityEventStore } from "@gatehousejs/pg-adapter";
 * import pg from "pg";
 *
 * const store = PostgresSecurityEventStore(new pg.Pool());
 * await store.migrate();
 * const securityLog = { store, retentionDays: 90 };
 * ```
 */
export function PostgresSecurityEventStore(
  client: Queryable,
  options: PostgresOptions = {},
): PostgresSecurityEventStoreMethods {
  const s = quoteSchema(options.schema);
  const db = serialized(client);
  const named = isNodePostgres(client);
  const table = `${s}."security_events"`;
  const columns = COLUMNS.map((c) => `"${c}"`).join(", ");
  const insert = `INSERT INTO ${table} (${columns}) VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(", ")}) ON CONFLICT ("id") DO NOTHING`;
  const latest = `SELECT ${columns} FROM ${table} WHERE "userId" = $1 ORDER BY "at" DESC, "id" DESC LIMIT $2`;
  const latestBefore = `SELECT ${columns} FROM ${table} WHERE "userId" = $1 AND "at" < $3 ORDER BY "at" DESC, "id" DESC LIMIT $2`;
  return {
    async migrate() {
      for (const statement of statements(s)) await rowsOf(db, statement);
    },
    async record(event) {
      await rowsOf(
        db,
        insert,
        [
          event.id,
          event.userId,
          event.type,
          event.at,
          event.provider ?? null,
          event.providerType ?? null,
          event.newClient ?? null,
          event.client ?? null,
          event.ip ?? null,
          event.sessionId ?? null,
          event.reason ?? null,
        ],
        named,
      );
    },
    async list(userId, { limit, before }) {
      const rows = before
        ? await rowsOf(db, latestBefore, [userId, limit, before], named)
        : await rowsOf(db, latest, [userId, limit], named);
      return rows.map(toEvent);
    },
    async prune(olderThan) {
      await rowsOf(db, `DELETE FROM ${table} WHERE "at" < $1`, [olderThan], named);
    },
  };
}
