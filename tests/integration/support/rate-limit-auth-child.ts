/**
 * One app instance of the cross-process sign-in limit test: `Auth()` with a credentials provider
 * (alice / wonderland) and `rateLimit.store` on the store named in its environment. At the shared
 * start time it sends `ATTEMPTS` credentials sign-ins (`X-Auth-Return-Redirect`, as `fetch` does)
 * from the client address `CLIENT`, with the password `PASSWORD`, and prints each answer's status
 * and `Retry-After` as one JSON line. `SEQUENTIAL=1` sends them one after another, otherwise all
 * at once. Bundled and run by rate-limit-stores.test.ts.
 */
import type { RateLimitStore } from "@gatehousejs/core/types";
import { PostgresRateLimitStore } from "@gatehousejs/pg-adapter";
import { RedisRateLimitStore } from "@gatehousejs/redis-adapter";
import { Redis } from "ioredis";
import { Pool } from "pg";
import { type SignInAnswer, signIn, signInConfig } from "./rate-limit-signin.js";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`rate-limit-auth-child: ${name} is not set`);
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
  const config = signInConfig(env("SECRET"), store, JSON.parse(env("LIMITS")));
  // Both instances start at the same moment.
  await new Promise((resolve) =>
    setTimeout(resolve, Math.max(0, Number(env("START_AT")) - Date.now())),
  );
  try {
    const attempts = Number(env("ATTEMPTS"));
    const answers: SignInAnswer[] = [];
    if (process.env.SEQUENTIAL === "1") {
      for (let i = 0; i < attempts; i++) {
        answers.push(await signIn(config, env("CLIENT"), env("PASSWORD")));
      }
    } else {
      const all = Array.from({ length: attempts }, () =>
        signIn(config, env("CLIENT"), env("PASSWORD")),
      );
      answers.push(...(await Promise.all(all)));
    }
    process.stdout.write(`${JSON.stringify({ answers })}\n`);
  } finally {
    await close();
  }
}

await main();
