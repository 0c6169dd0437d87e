/**
 * One process of the cross-process rate-limit test: opens the store named in its environment the
 * way an app would, waits for the shared start time, hits one key `HITS` times (all at once) and
 * prints the counts it got as one JSON line. Bundled and run by rate-limit-stores.test.ts.
 */
import type { RateLimitStore } from "@gatehousejs/core/types";
import { PostgresRateLimitStore } from "@gatehousejs/pg-adapter";
import { RedisRateLimitStore } from "@gatehousejs/redis-adapter";
import { Redis } from "ioredis";
import { Pool } from "pg";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`rate-limit-child: ${name} is not set`);
  return value;
};

async function main() {
  let store: RateLimitStore;
  let close: () => Promise<unknown>;
  if (env("STORE") === "postgres") {
    const pool = new Pool({ connectionString: env("DATABASE_URL"), max: 8 });
    store = PostgresRateLimitStore(pool, { schema: env("SCHEMA") });
    close = () => pool.end();
  } else {
    const redis = new Redis(env("REDIS_URL"));
    store = RedisRateLimitStore(redis, { prefix: env("PREFIX") });
    close = () => redis.quit();
  }
  // Both processes start hitting at the same moment.
  await new Promise((resolve) =>
    setTimeout(resolve, Math.max(0, Number(env("START_AT")) - Date.now())),
  );
  try {
    const hits = Array.from({ length: Number(env("HITS")) }, () =>
      store.hit(env("KEY"), Number(env("WINDOW_MS"))),
    );
    const counts = (await Promise.all(hits)).map((c) => c.count);
    process.stdout.write(`${JSON.stringify({ counts })}\n`);
  } finally {
    await close();
  }
}

await main();
