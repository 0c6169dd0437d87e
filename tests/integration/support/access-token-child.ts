/**
 * One process of the cross-process refresh test: opens the store named in its environment the
 * way an app would, waits for the shared start time, calls getAccessToken once and prints the
 * result (or the error's name) as one JSON line. Bundled and run by access-token-stores.test.ts.
 */
import { getAccessToken } from "@gatehousejs/core";
import type { Adapter } from "@gatehousejs/core/adapters";
import OIDC from "@gatehousejs/core/providers/oidc";
import { PostgresAdapter } from "@gatehousejs/pg-adapter";
import { RedisAdapter } from "@gatehousejs/redis-adapter";
import { Redis } from "ioredis";
import { Pool } from "pg";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`access-token-child: ${name} is not set`);
  return value;
};

async function main() {
  const store = env("STORE");
  let adapter: Adapter;
  let close: () => Promise<unknown>;
  if (store === "postgres") {
    const pool = new Pool({ connectionString: env("DATABASE_URL"), max: 4 });
    adapter = PostgresAdapter(pool, { schema: env("SCHEMA") });
    close = () => pool.end();
  } else {
    const redis = new Redis(env("REDIS_URL"));
    adapter = RedisAdapter(redis, { prefix: env("PREFIX") });
    close = () => redis.quit();
  }
  const config = {
    secret: "access-token-child-secret-0123456789abcdef",
    trustHost: true,
    adapter,
    providers: [
      OIDC({
        issuer: env("ISSUER"),
        clientId: env("CLIENT_ID"),
        clientSecret: env("CLIENT_SECRET"),
      }),
    ],
  };
  // Both processes start their call at the same moment.
  await new Promise((resolve) =>
    setTimeout(resolve, Math.max(0, Number(env("START_AT")) - Date.now())),
  );
  try {
    const token = await getAccessToken({ userId: env("USER_ID") }, config, "oidc");
    process.stdout.write(`${JSON.stringify({ ok: true, token })}\n`);
  } catch (error) {
    const name = error instanceof Error ? error.name : typeof error;
    process.stdout.write(`${JSON.stringify({ ok: false, error: name })}\n`);
  } finally {
    await close();
  }
}

await main();
