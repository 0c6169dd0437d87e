/**
 * One app instance of the cross-process back-channel replay test: opens the counter store named
 * in its environment (Redis or PostgreSQL) as an app would configure `rateLimit.store`, delivers
 * the logout tokens it is given to `Auth()` in order and prints their HTTP statuses as one JSON
 * line. Bundled and run by backchannel-replay-stores.test.ts.
 */
import { Auth } from "@gatehousejs/core";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import OIDC from "@gatehousejs/core/providers/oidc";
import type { AuthConfig, RateLimitStore } from "@gatehousejs/core/types";
import { PostgresRateLimitStore } from "@gatehousejs/pg-adapter";
import { RedisRateLimitStore } from "@gatehousejs/redis-adapter";
import { Redis } from "ioredis";
import { Pool } from "pg";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`backchannel-child: ${name} is not set`);
  return value;
};

async function main() {
  let store: RateLimitStore;
  let close: () => Promise<unknown>;
  if (env("STORE") === "postgres") {
    const pool = new Pool({ connectionString: env("DATABASE_URL"), max: 2 });
    store = PostgresRateLimitStore(pool, { schema: env("SCHEMA") });
    close = () => pool.end();
  } else {
    const redis = new Redis(env("REDIS_URL"));
    store = RedisRateLimitStore(redis, { prefix: env("PREFIX") });
    close = () => redis.quit();
  }
  const config: AuthConfig = {
    secret: "backchannel-child-secret-0123456789abcdef",
    trustHost: true,
    adapter: MemoryAdapter(),
    session: { strategy: "database" },
    rateLimit: { store },
    logger: { warn: () => {}, error: () => {} },
    providers: [
      OIDC({
        issuer: env("ISSUER"),
        clientId: env("CLIENT_ID"),
        clientSecret: env("CLIENT_SECRET"),
      }),
    ],
  };
  const statuses: number[] = [];
  try {
    for (const token of JSON.parse(env("TOKENS")) as string[]) {
      const response = await Auth(
        new Request("http://localhost:3000/auth/backchannel-logout/oidc", {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ logout_token: token }),
        }),
        config,
      );
      statuses.push(response.status);
    }
  } finally {
    await close();
  }
  process.stdout.write(`${JSON.stringify({ statuses })}\n`);
}

await main();
