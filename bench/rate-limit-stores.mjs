/**
 * The shared rate-limit stores (issue 14): one `hit` on the Redis store against one bare `INCR`
 * through the same client, and one `hit` on the PostgreSQL store against one bare counter upsert
 * (`INSERT … ON CONFLICT DO UPDATE SET n = n + 1`, a committed write like the hit) through the
 * same pool. A hit is one round trip (one `EVALSHA`, one statement; checked before timing), so
 * its rate should stay close to the bare write's. Target: ratio ≥ 0.6. Two round trips would
 * halve the rate (0.5); the rest is the server deciding the window (the script's five calls take
 * about 25 µs inside Redis). PGlite is timed alone, for scale.
 *
 * Run alone with `node bench/rate-limit-stores.mjs` after `npm run build` (BENCH_BUDGET_MS,
 * BENCH_WARMUP_MS, DATABASE_URL, REDIS_URL); `rateLimitStoreScenarios(out, …)` has the shape of
 * the other scenario modules, for run.mjs.
 */
import { randomUUID } from "node:crypto";
import { pathToFileURL } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { PostgresRateLimitStore } from "@gatehousejs/pg-adapter";
import { RedisRateLimitStore } from "@gatehousejs/redis-adapter";
import { Redis } from "ioredis";
import pg from "pg";
import { CheckFailed, check } from "./check.mjs";
import { compare, warmUp } from "./harness.mjs";

const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const WINDOW_MS = 60_000;
/** Distinct keys the timed hits spread over, as many clients would. */
const KEYS = 1000;

const where = (url) => {
  try {
    return new URL(url).host;
  } catch {
    return "(unparsable URL)";
  }
};

/** A hit op over `KEYS` keys, alternating fixed and extended windows. */
function hitOp(store) {
  const keys = Array.from({ length: KEYS }, () => `bench:${randomUUID()}`);
  let i = 0;
  return () => {
    i = (i + 1) % KEYS;
    return store.hit(keys[i], WINDOW_MS, { extend: i % 2 === 0 });
  };
}

async function openRedis() {
  const client = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 2000,
  });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    client.disconnect();
    return { skipped: `Redis at ${where(REDIS_URL)} unreachable (${error.message})` };
  }
  const prefix = `gatehouse-bench-rate:${process.pid}:`;
  let sent = [];
  const counted = {
    call: (command, ...args) => {
      sent.push(String(command).toUpperCase());
      return client.call(command, ...args);
    },
  };
  return {
    store: RedisRateLimitStore(counted, { prefix }),
    bare: () => client.call("INCR", `${prefix}bare`),
    takeSent() {
      const taken = sent;
      sent = [];
      return taken;
    },
    async close() {
      let cursor = "0";
      do {
        const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
        if (keys.length) await client.del(...keys);
        cursor = next;
      } while (cursor !== "0");
      await client.quit();
    },
  };
}

async function openPostgres() {
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
  pool.on("error", () => {});
  try {
    await pool.query("SELECT 1");
  } catch (error) {
    await pool.end().catch(() => {});
    return {
      skipped: `PostgreSQL at ${where(DATABASE_URL)} unreachable (${error.code ?? error.message})`,
    };
  }
  const schema = `gh_bench_rate_${process.pid}`;
  let sent = 0;
  const counted = Object.assign(Object.create(pool), {
    query: (...args) => {
      sent++;
      return pool.query(...args);
    },
  });
  const store = PostgresRateLimitStore(counted, { schema });
  await store.migrate();
  await pool.query(`CREATE TABLE "${schema}"."bare" ("key" text PRIMARY KEY, "n" bigint NOT NULL)`);
  const bareKeys = Array.from({ length: KEYS }, () => randomUUID());
  let b = 0;
  sent = 0;
  return {
    store,
    bare: () => {
      b = (b + 1) % KEYS;
      return pool.query({
        name: `gatehouse_bench_bare_${schema}`,
        text: `INSERT INTO "${schema}"."bare" AS t VALUES ($1, 1)
ON CONFLICT ("key") DO UPDATE SET "n" = t."n" + 1 RETURNING "n"`,
        values: [bareKeys[b]],
      });
    },
    takeSent() {
      const taken = sent;
      sent = 0;
      return taken;
    },
    async close() {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    },
  };
}

/** Checks, warms and times the stores, then adds their rows to `out`. */
export async function rateLimitStoreScenarios(out, { budgetMs, warmupMs, slices = 30 }) {
  const redis = await openRedis();
  const postgres = await openPostgres();
  const lite = new PGlite();
  try {
    const liteStore = PostgresRateLimitStore(lite);
    await liteStore.migrate();

    // The checks: counts go up by one, and a hit is one command / one statement.
    for (const [name, opened] of [
      ["redis", redis],
      ["postgres", postgres],
      ["pglite", { store: liteStore }],
    ]) {
      if (!opened.store) continue;
      const key = `check:${randomUUID()}`;
      opened.takeSent?.();
      const first = await opened.store.hit(key, WINDOW_MS);
      const second = await opened.store.hit(key, WINDOW_MS);
      check(
        first.count === 1 && second.count === 2,
        `rate-limit ${name}: counts ${first.count}, ${second.count}`,
      );
      check(second.resetAt === first.resetAt, `rate-limit ${name}: a fixed window moved`);
      const sent = opened.takeSent?.();
      if (name === "redis") {
        check(
          sent.every((c) => c === "EVALSHA") && sent.length <= 3,
          `rate-limit redis: two hits sent ${sent.join(", ")}`,
        );
      }
      if (name === "postgres")
        check(sent === 2, `rate-limit postgres: two hits ran ${sent} statements`);
    }

    const rows = [
      ["redis", redis, "Redis store hit (vs one bare INCR)"],
      ["postgres", postgres, "PostgreSQL store hit (vs one bare counter upsert)"],
    ];
    for (const [name, opened, label] of rows) {
      const row = { id: `rate-limit-store-${name}`, label, target: 0.6 };
      if (!opened.store) {
        out.skip({ ...row, reason: opened.skipped });
        continue;
      }
      const ops = { hit: hitOp(opened.store), bare: opened.bare };
      await warmUp(Object.values(ops), { totalMs: warmupMs });
      const result = await compare(ops, { budgetMs, slices, warmupMs: 200 });
      out.add({ ...row, g: result.hit, a: result.bare, ratio: result.ratio });
    }
    const liteOp = hitOp(liteStore);
    await warmUp([liteOp], { totalMs: warmupMs / 4 });
    const alone = await compare({ hit: liteOp }, { budgetMs, slices, warmupMs: 200 });
    console.log(`rate-limit: a PGlite hit takes ${(1e6 / alone.hit.opsPerSec).toFixed(1)} µs`);
  } finally {
    await redis.close?.();
    await postgres.close?.();
    await lite.close();
  }
}

// Alone: `node bench/rate-limit-stores.mjs` prints its rows.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const rows = [];
  const out = {
    add: ({ id, target, g, a, ratio }) =>
      rows.push(
        `${id}: ${Math.round(g.opsPerSec)} hits/s vs ${Math.round(a.opsPerSec)} bare writes/s, ` +
          `ratio ${ratio.toFixed(3)} (target ≥ ${target}: ${ratio >= target ? "PASS" : "MISS"})`,
      ),
    skip: ({ id, reason }) => rows.push(`${id}: skipped (${reason})`),
  };
  const budgetMs = Number(process.env.BENCH_BUDGET_MS ?? 3000);
  const warmupMs = Number(process.env.BENCH_WARMUP_MS ?? 4000);
  rateLimitStoreScenarios(out, { budgetMs, warmupMs })
    .then(() => console.log(rows.join("\n")))
    .catch((error) => {
      console.error(error instanceof CheckFailed ? `bench check failed: ${error.message}` : error);
      process.exit(1);
    });
}
