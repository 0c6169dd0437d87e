/**
 * The rate-limit counter store on PostgreSQL: one table of its own, `rate_limits`, one row per
 * counter. A hit is one statement on the database's clock; an ended row is started again in
 * place by the next hit on its key, and `prune()` deletes the ended rows nobody hit again.
 */
import type { RateLimitCount, RateLimitStore } from "@gatehousejs/core/types";
import {
  isNodePostgres,
  type PostgresOptions,
  type Queryable,
  quoteSchema,
  type Row,
  rowsOf,
  serialized,
} from "./client.js";

/** What {@link PostgresRateLimitStore} returns: the store contract, its migration and pruning. */
export interface PostgresRateLimitStoreMethods extends RateLimitStore {
  /** Creates the store's table unless it exists. Safe to run on every start. */
  migrate(): Promise<void>;
  /**
   * Deletes the counters that have ended, in batches of 10,000 rows, skipping rows that a hit
   * holds at that moment, and returns how many it deleted. Ended rows count for nothing (the next
   * hit on the key starts them again), so this only reclaims space: run it now and then (an
   * hourly or daily job).
   */
  prune(): Promise<number>;
}

/** The store's DDL for the quoted schema `s`. */
function statements(s: string): string[] {
  // No index on "resetAt": a hit then only changes unindexed columns, so PostgreSQL updates the
  // row in place (a HOT update); prune() reads the table once instead.
  return [
    `CREATE TABLE IF NOT EXISTS ${s}."rate_limits" (
  "key"     text PRIMARY KEY,
  "count"   bigint NOT NULL,
  "resetAt" timestamptz NOT NULL
)`,
  ];
}

/** The whole milliseconds of a window, or a `TypeError` for a window that is not a duration. */
function windowOf(windowMs: number): number {
  if (typeof windowMs !== "number" || !Number.isFinite(windowMs) || windowMs <= 0) {
    throw new TypeError("PostgresRateLimitStore: hit needs a positive, finite windowMs");
  }
  return Math.ceil(windowMs);
}

function countOf(row: Row | undefined): RateLimitCount | null {
  if (!row) return null;
  return { count: Number(row.count), resetAt: Number(row.resetAt) };
}

const PRUNE_BATCH = 10_000;

/**
 * A {@link RateLimitStore} on PostgreSQL, for `rateLimit.store`: every app instance on the same
 * database shares one limit. Give it a `pg` Pool (or Client) or PGlite and run
 * {@link PostgresRateLimitStoreMethods.migrate} once at start; the table `rate_limits` lives in
 * `options.schema` (default `public`).
 *
 * - `hit` is ONE statement (`INSERT … ON CONFLICT DO UPDATE … RETURNING`): the row lock makes it
 *   atomic across every connection, so 1,000 simultaneous hits get the counts 1 to 1,000, each
 *   once.
 * - The window runs on the database's clock (`clock_timestamp()`, to the millisecond), and
 *   `resetAt` is that time, so every instance reports the same end for one counter. Keep app
 *   hosts in sync with NTP: a skewed host computes a `Retry-After` off by its skew, but the
 *   limit itself never moves.
 * - A row whose window has ended is started again in place by the next hit on its key; `peek`
 *   ignores it. {@link PostgresRateLimitStoreMethods.prune} deletes such rows in bulk.
 *
 * @example
 * ```ts
 * import type { AuthConfig } from "@gatehousejs/core";
 * import { PostgresRateLimitStore } from "@gatehousejs/pg-adapter";
 * import { Pool } from "pg";
 *
 * const pool = new Pool({ connectionString: process.env.DATABASE_URL });
 * const store = PostgresRateLimitStore(pool);
 * await store.migrate();
 * const config = {
 *   secret: process.env.AUTH_SECRET,
 *   providers: [],
 *   rateLimit: { store },
 * } satisfies AuthConfig;
 * ```
 */
export function PostgresRateLimitStore(
  client: Queryable,
  options: PostgresOptions = {},
): PostgresRateLimitStoreMethods {
  const schema = options.schema ?? "public";
  const s = quoteSchema(schema);
  const table = `${s}."rate_limits"`;

  const named = isNodePostgres(client);
  const queue = serialized(client);
  const run = (sql: string, params?: unknown[]) => rowsOf(queue, sql, params, named);

  // The clock is read once for the insert and once more after the row lock is held, so a hit
  // that waited for another one decides on the time it actually counts at.
  const now = `(SELECT date_trunc('milliseconds', clock_timestamp()) AS "at") n`;
  const end = `n."at" + $2::float8 * interval '1 millisecond'`;
  const resetAtMs = `(extract(epoch FROM "resetAt") * 1000)::bigint AS "resetAt"`;
  const hit = `INSERT INTO ${table} AS c ("key", "count", "resetAt")
SELECT $1, 1, ${end} FROM ${now}
ON CONFLICT ("key") DO UPDATE SET ("count", "resetAt") = (
  SELECT CASE WHEN c."resetAt" <= n."at" THEN 1 ELSE c."count" + 1 END,
         CASE WHEN c."resetAt" <= n."at" OR $3::boolean THEN ${end} ELSE c."resetAt" END
  FROM ${now}
)
RETURNING "count", ${resetAtMs}`;
  const peek = `SELECT "count", ${resetAtMs} FROM ${table}
WHERE "key" = $1 AND "resetAt" > clock_timestamp()`;
  const prune = `WITH ended AS (
  DELETE FROM ${table} WHERE "key" IN (
    SELECT "key" FROM ${table} WHERE "resetAt" <= clock_timestamp()
    LIMIT ${PRUNE_BATCH} FOR UPDATE SKIP LOCKED
  ) AND "resetAt" <= clock_timestamp()
  RETURNING 1
)
SELECT count(*)::int AS "deleted" FROM ended`;

  return {
    async migrate() {
      const body = statements(s)
        .map((sql) => `  ${sql.replaceAll("\n", "\n  ")};`)
        .join("\n");
      // One statement under an advisory lock, as the adapter's migrate: several processes may
      // start at once. `schema` matched a strict pattern, so it is safe inside the literal.
      await client.query(`DO $gatehouse$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('@gatehousejs/pg-adapter rate-limit migrate'));
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_namespace WHERE nspname = '${schema}') THEN
    CREATE SCHEMA IF NOT EXISTS ${s};
  END IF;
${body}
END
$gatehouse$`);
    },
    async hit(key, windowMs, hitOptions) {
      const rows = await run(hit, [key, windowOf(windowMs), hitOptions?.extend === true]);
      const counter = countOf(rows[0]);
      if (!counter) throw new Error("PostgresRateLimitStore: the hit returned no row");
      return counter;
    },
    async peek(key) {
      return countOf((await run(peek, [key]))[0]);
    },
    async reset(key) {
      await run(`DELETE FROM ${table} WHERE "key" = $1`, [key]);
    },
    async prune() {
      let total = 0;
      for (;;) {
        const deleted = Number((await run(prune))[0]?.deleted ?? 0);
        total += deleted;
        if (deleted < PRUNE_BATCH) return total;
      }
    },
  };
}
