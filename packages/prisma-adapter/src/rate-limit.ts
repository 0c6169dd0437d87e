/**
 * The rate-limit counter store through Prisma: one table of its own, `rate_limits`, one row per
 * counter. A hit is an upsert written in SQL for the dialect (Prisma's upsert cannot start an
 * ended window again in the same statement).
 */
import type { RateLimitCount, RateLimitStore } from "@gatehousejs/core/types";
import {
  type Db,
  dialectOf,
  model,
  type PrismaAdapterOptions,
  type PrismaClientLike,
  type Row,
  storedKey,
  TX_OPTIONS,
  tableNamer,
} from "./client.js";

/** The model {@link PrismaRateLimitStore} uses, by its client property name. */
export type PrismaRateLimitModels = "rateLimit";

/** What {@link PrismaRateLimitStore} returns: the store contract and pruning. */
export interface PrismaRateLimitStoreMethods extends RateLimitStore {
  /**
   * Deletes the counters that have ended and returns how many. Ended rows count for nothing
   * (the next hit on the key starts them again), so this only reclaims space: run it now and then.
   */
  prune(): Promise<number>;
}

const WHO = "PrismaRateLimitStore";

/** The whole milliseconds of a window, or a `TypeError` for a window that is not a duration. */
function windowOf(windowMs: number): number {
  if (typeof windowMs !== "number" || !Number.isFinite(windowMs) || windowMs <= 0) {
    throw new TypeError(`${WHO}: hit needs a positive, finite windowMs`);
  }
  return Math.ceil(windowMs);
}

function countOf(row: Row | undefined): RateLimitCount | null {
  if (!row) return null;
  return { count: Number(row.count), resetAt: Number(row.resetAt) };
}

/**
 * A {@link RateLimitStore} through Prisma, for `rateLimit.store`: every app instance on the same
 * database shares one limit. The client's schema needs the model `RateLimit` of this package's
 * fragment.
 *
 * - PostgreSQL: a hit is ONE statement (`INSERT … ON CONFLICT DO UPDATE … RETURNING`) on the
 *   database's clock, as `@gatehousejs/pg-adapter`'s.
 * - MySQL/MariaDB: a short transaction, `INSERT … ON DUPLICATE KEY UPDATE` (which locks the
 *   row) then a read of the row, on the database's clock (`UTC_TIMESTAMP(3)`).
 * - MySQL's `rate_limits.key` is `varchar(255)`: a longer key is stored as its SHA-256.
 * - SQLite: ONE statement (`INSERT … ON CONFLICT DO UPDATE … RETURNING`) on this process's clock
 *   (SQLite runs in this process).
 *
 * Each is atomic: 1,000 simultaneous hits on one key get the counts 1 to 1,000, each once.
 *
 * @example
 * ```ts
 * import type { AuthConfig } from "@gatehousejs/core";
 * import { PrismaRateLimitStore } from "@gatehousejs/prisma-adapter";
 * import { PrismaMariaDb } from "@prisma/adapter-mariadb";
 * import { PrismaClient } from "./generated/prisma/client.js";
 *
 * const prisma = new PrismaClient({ adapter: new PrismaMariaDb(process.env.DATABASE_URL ?? "") });
 * const config = {
 *   secret: process.env.AUTH_SECRET,
 *   providers: [],
 *   rateLimit: { store: PrismaRateLimitStore(prisma) },
 * } satisfies AuthConfig;
 * ```
 */
export function PrismaRateLimitStore(
  prisma: PrismaClientLike<PrismaRateLimitModels>,
  options: PrismaAdapterOptions = {},
): PrismaRateLimitStoreMethods {
  const dialect = dialectOf(prisma, options.dialect, WHO);
  const table = tableNamer(dialect, options.schema, WHO)("rate_limits");
  const db = prisma as unknown as Db;
  const counters = model(db, "rateLimit");

  let hit: (key: string, windowMs: number, extend: boolean) => Promise<Row | undefined>;
  let peek: (key: string) => Promise<Row | undefined>;

  if (dialect === "postgresql") {
    // The clock is read once for the insert and once more after the row lock is held, so a hit
    // that waited for another one decides on the time it actually counts at.
    const now = `(SELECT date_trunc('milliseconds', clock_timestamp()) AS "at") n`;
    const end = `n."at" + $2::float8 * interval '1 millisecond'`;
    const resetAtMs = `(extract(epoch FROM "resetAt") * 1000)::bigint AS "resetAt"`;
    const upsert = `INSERT INTO ${table} AS c ("key", "count", "resetAt")
SELECT $1, 1, ${end} FROM ${now}
ON CONFLICT ("key") DO UPDATE SET ("count", "resetAt") = (
  SELECT CASE WHEN c."resetAt" <= n."at" THEN 1 ELSE c."count" + 1 END,
         CASE WHEN c."resetAt" <= n."at" OR $3::boolean THEN ${end} ELSE c."resetAt" END
  FROM ${now}
)
RETURNING "count", ${resetAtMs}`;
    const read = `SELECT "count", ${resetAtMs} FROM ${table}
WHERE "key" = $1 AND "resetAt" > clock_timestamp()`;
    hit = async (key, windowMs, extend) =>
      (await db.$queryRawUnsafe(upsert, key, windowMs, extend))[0];
    peek = async (key) => (await db.$queryRawUnsafe(read, key))[0];
  } else if (dialect === "mysql") {
    // Assignments of ON DUPLICATE KEY UPDATE run left to right: "count" is decided on the old
    // "resetAt", then "resetAt" is moved.
    const end = "DATE_ADD(UTC_TIMESTAMP(3), INTERVAL ? MICROSECOND)";
    const ended = "`resetAt` <= UTC_TIMESTAMP(3)";
    const upsert = `INSERT INTO ${table} (\`key\`, \`count\`, \`resetAt\`) VALUES (?, 1, ${end})
ON DUPLICATE KEY UPDATE
  \`count\` = IF(${ended}, 1, \`count\` + 1),
  \`resetAt\` = IF(${ended} OR ?, ${end}, \`resetAt\`)`;
    // Milliseconds since the epoch, whatever the connection's time zone.
    const resetAtMs =
      "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', `resetAt`) DIV 1000 AS `resetAt`";
    const select = `SELECT \`count\`, ${resetAtMs} FROM ${table} WHERE \`key\` = ?`;
    hit = (key, windowMs, extend) =>
      db.$transaction(async (tx) => {
        await tx.$executeRawUnsafe(upsert, key, windowMs * 1000, extend ? 1 : 0, windowMs * 1000);
        // The row is locked by this transaction's upsert: the read sees this hit's count.
        return (await tx.$queryRawUnsafe(select, key))[0];
      }, TX_OPTIONS);
    peek = async (key) =>
      (await db.$queryRawUnsafe(`${select} AND \`resetAt\` > UTC_TIMESTAMP(3)`, key))[0];
  } else {
    // SQLite: "resetAt" holds epoch milliseconds; DO UPDATE reads the row's old values.
    const upsert = `INSERT INTO ${table} ("key", "count", "resetAt") VALUES (?, 1, ?)
ON CONFLICT ("key") DO UPDATE SET
  "count" = CASE WHEN "resetAt" <= ? THEN 1 ELSE "count" + 1 END,
  "resetAt" = CASE WHEN "resetAt" <= ? OR ? THEN ? ELSE "resetAt" END
RETURNING "count", "resetAt"`;
    const read = `SELECT "count", "resetAt" FROM ${table} WHERE "key" = ? AND "resetAt" > ?`;
    hit = async (key, windowMs, extend) => {
      const now = Date.now();
      const end = now + windowMs;
      return (await db.$queryRawUnsafe(upsert, key, end, now, now, extend ? 1 : 0, end))[0];
    };
    peek = async (key) => (await db.$queryRawUnsafe(read, key, Date.now()))[0];
  }

  return {
    async hit(key, windowMs, hitOptions) {
      const window = windowOf(windowMs);
      const counter = countOf(
        await hit(await storedKey(dialect, key), window, hitOptions?.extend === true),
      );
      if (!counter) throw new Error(`${WHO}: the hit returned no row`);
      return counter;
    },
    async peek(key) {
      return countOf(await peek(await storedKey(dialect, key)));
    },
    async reset(key) {
      await counters.deleteMany({ where: { key: await storedKey(dialect, key) } });
    },
    async prune() {
      return (await counters.deleteMany({ where: { resetAt: { lte: new Date() } } })).count;
    },
  };
}
