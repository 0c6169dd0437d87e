/**
 * The rate-limit counter store: one table of its own, `rate_limits`, one row per counter. A hit
 * is counted atomically on the database's clock: one statement on PostgreSQL and SQLite, one
 * short transaction on MySQL.
 */
import type { RateLimitCount, RateLimitStore } from "@gatehousejs/core/types";
import { and, eq, gt, lte, sql } from "drizzle-orm";
import { type DrizzleDatabase, fittedKey, retryDeadlocks } from "./dialect.js";
import type { Row } from "./rows.js";
import { type DrizzleStoreOptions, guardedStore, storeContext } from "./stores.js";
import { column } from "./tables.js";

/** What {@link DrizzleRateLimitStore} returns: the store contract and pruning. */
export interface DrizzleRateLimitStoreMethods extends RateLimitStore {
  /**
   * Deletes the counters that have ended and returns how many. Ended rows count for nothing
   * (the next hit on the key starts them again), so this only reclaims space: run it now and
   * then.
   */
  prune(): Promise<number>;
}

/** The whole milliseconds of a window, or a `TypeError` for a window that is not a duration. */
function windowOf(windowMs: number): number {
  if (typeof windowMs !== "number" || !Number.isFinite(windowMs) || windowMs <= 0) {
    throw new TypeError("DrizzleRateLimitStore: hit needs a positive, finite windowMs");
  }
  return Math.ceil(windowMs);
}

/** A counter; `resetAt` arrives as a Date (mapped by Drizzle), or as epoch ms (a raw row). */
const countOf = (row: Row | undefined): RateLimitCount | null =>
  row
    ? {
        count: Number(row.count),
        resetAt: row.resetAt instanceof Date ? row.resetAt.valueOf() : Number(row.resetAt),
      }
    : null;

/**
 * A {@link RateLimitStore} over a Drizzle database, for `rateLimit.store`: every app instance on
 * the same database shares one limit. Simultaneous hits on one key get the counts 1, 2, 3, …,
 * each once. The window runs on the database's clock, so every instance reports the same end
 * for one counter. Create its table with `npx gatehouse migrate` (feature `rateLimit`).
 *
 * @example
 * ```ts
 * import type { AuthConfig } from "@gatehousejs/core";
 * import { DrizzleRateLimitStore } from "@gatehousejs/drizzle-adapter";
 * import { drizzle } from "drizzle-orm/node-postgres";
 *
 * const db = drizzle(process.env.DATABASE_URL ?? "");
 * const config = {
 *   secret: process.env.AUTH_SECRET,
 *   providers: [],
 *   rateLimit: { store: DrizzleRateLimitStore(db) },
 * } satisfies AuthConfig;
 * ```
 */
export function DrizzleRateLimitStore(
  database: DrizzleDatabase,
  options: DrizzleStoreOptions = {},
): DrizzleRateLimitStoreMethods {
  const ctx = storeContext(database, options);
  const { db, t, now } = ctx;
  const table = t.rateLimits;
  const c = {
    key: column(table, "key"),
    count: column(table, "count"),
    resetAt: column(table, "resetAt"),
  };
  const K = sql.identifier(c.key.name);
  const C = sql.identifier(c.count.name);
  const R = sql.identifier(c.resetAt.name);

  async function hit(given: string, ms: number, extend: boolean): Promise<Row | undefined> {
    const key = fittedKey(ctx.dialect, given);
    if (ctx.dialect === "postgresql") {
      // The clock is read once for the insert and once more after the row lock is held, so a
      // hit that waited for another decides on the time it actually counts at.
      const clock = sql`(select ${now} as "at") n`;
      const end = sql`n."at" + ${ms}::float8 * interval '1 millisecond'`;
      const rows = await ctx.rows(sql`insert into ${table} as c (${K}, ${C}, ${R})
select ${key}, 1, ${end} from ${clock}
on conflict (${K}) do update set (${C}, ${R}) = (
  select case when c.${R} <= n."at" then 1 else c.${C} + 1 end,
         case when c.${R} <= n."at" or ${extend}::boolean then ${end} else c.${R} end
  from ${clock}
)
returning c.${C} as "count", (extract(epoch from c.${R}) * 1000)::bigint as "resetAt"`);
      return rows[0];
    }
    if (ctx.dialect === "sqlite") {
      // Every `now` of one statement is the same instant; SET reads the row as it was.
      const rows = await ctx.rows(sql`insert into ${table} (${K}, ${C}, ${R})
values (${key}, 1, ${now} + ${ms})
on conflict (${K}) do update set
  ${C} = case when ${R} <= ${now} then 1 else ${C} + 1 end,
  ${R} = case when ${R} <= ${now} or ${extend ? 1 : 0} then ${now} + ${ms} else ${R} end
returning ${C} as "count", ${R} as "resetAt"`);
      return rows[0];
    }
    // MySQL: the upsert holds the row's lock until the transaction ends, so the read after it
    // sees this hit's count. Its assignments run left to right: `count` reads the old `resetAt`.
    const end = sql`date_add(${now}, interval ${ms * 1000} microsecond)`;
    return retryDeadlocks(() =>
      db.transaction(async (tx) => {
        await ctx.run(
          sql`insert into ${table} (${K}, ${C}, ${R}) values (${key}, 1, ${end})
on duplicate key update
  ${C} = if(${R} <= ${now}, 1, ${C} + 1),
  ${R} = if(${R} <= ${now} or ${extend ? 1 : 0}, ${end}, ${R})`,
          tx,
        );
        const rows = await tx
          .select({ count: c.count, resetAt: c.resetAt })
          .from(table)
          .where(eq(c.key, key))
          .for("update");
        return rows[0];
      }),
    );
  }

  return guardedStore<DrizzleRateLimitStoreMethods>({
    async hit(key, windowMs, hitOptions) {
      const counter = countOf(await hit(key, windowOf(windowMs), hitOptions?.extend === true));
      if (!counter) throw new Error("DrizzleRateLimitStore: the hit returned no row");
      return counter;
    },
    async peek(key) {
      const rows = await db
        .select({ count: c.count, resetAt: c.resetAt })
        .from(table)
        .where(and(eq(c.key, fittedKey(ctx.dialect, key)), gt(c.resetAt, now)))
        .limit(1);
      return countOf(rows[0]);
    },
    async reset(key) {
      await db.delete(table).where(eq(c.key, fittedKey(ctx.dialect, key)));
    },
    async prune() {
      const ended = lte(c.resetAt, now);
      if (ctx.returning) {
        return (await db.delete(table).where(ended).returning({ key: c.key })).length;
      }
      return ctx.affected(await db.delete(table).where(ended));
    },
  });
}
