/**
 * Back-channel logout replays across processes: two app instances share a counter store
 * (`rateLimit.store`: Redis, or PostgreSQL) and a logout token delivered to one is refused by the
 * other. The logout tokens are signed by a real OpenID provider (oidc-provider, in this process)
 * whose JWKS both children fetch.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { PostgresRateLimitStore } from "@gatehousejs/pg-adapter";
import { Redis } from "ioredis";
import type { JWTPayload } from "jose";
import { Pool } from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  type OidcServer,
  startOidcProvider,
} from "../../packages/core/test/support/oidc-server.js";
import { DATABASE_URL, REDIS_URL, serverUnavailable } from "./stores.js";
import { childProcesses } from "./support/children.js";

const FILE = "backchannel-replay-stores.test.ts";
const EVENT = "http://schemas.openid.net/event/backchannel-logout";

/** Outside CI an unreachable server skips its block with the reason; in CI the block fails. */
async function usable(server: "PostgreSQL" | "Redis"): Promise<boolean> {
  const why = await serverUnavailable(server);
  if (why && process.env.CI !== "true") console.warn(`${FILE}: skipped: ${why}`);
  return !why || process.env.CI === "true";
}

const pgUp = await usable("PostgreSQL");
const redisUp = await usable("Redis");
const pool = new Pool({ connectionString: DATABASE_URL, max: 2 });
pool.on("error", () => {});
const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
redis.on("error", () => {});
const children = childProcesses("backchannel");

let op: OidcServer;
beforeAll(async () => {
  op = await startOidcProvider();
  await children.bundle("backchannel-child");
}, 60_000);

afterAll(async () => {
  await op?.close();
  await pool.end();
  redis.disconnect();
});

function logoutToken(): Promise<string> {
  const claims: JWTPayload = {
    iss: op.issuer,
    aud: op.clients.basic.clientId,
    iat: Math.floor(Date.now() / 1000),
    jti: randomUUID(),
    sub: "user-1",
    sid: "provider-session",
    events: { [EVENT]: {} },
  };
  return op.signJwt(claims);
}

/** Runs one app instance delivering `tokens` in order; resolves to the HTTP statuses. */
async function instance(storeEnv: Record<string, string>, tokens: string[]): Promise<number[]> {
  const { statuses } = await children.run<{ statuses: number[] }>("backchannel-child", {
    ...storeEnv,
    ISSUER: op.issuer,
    CLIENT_ID: op.clients.basic.clientId,
    CLIENT_SECRET: op.clients.basic.clientSecret ?? "",
    TOKENS: JSON.stringify(tokens),
  });
  return statuses;
}

async function replayAcrossInstances(storeEnv: Record<string, string>) {
  const first = await logoutToken();
  const second = await logoutToken();
  // Instance A accepts a token; instance B refuses its replay and still accepts a new one.
  expect(await instance(storeEnv, [first])).toEqual([200]);
  expect(await instance(storeEnv, [first, second])).toEqual([400, 200]);
  // And back: A refuses the token B accepted.
  expect(await instance(storeEnv, [second])).toEqual([400]);
}

describe.skipIf(!redisUp)("Redis counter store", () => {
  test("a logout token accepted by one instance is refused as a replay by another", async () => {
    const prefix = `gatehouse-test:bcl-${randomBytes(6).toString("hex")}:`;
    try {
      await replayAcrossInstances({ STORE: "redis", REDIS_URL, PREFIX: prefix });
    } finally {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    }
  }, 60_000);
});

describe.skipIf(!pgUp)("PostgreSQL counter store", () => {
  test("a logout token accepted by one instance is refused as a replay by another", async () => {
    const schema = `bcl_${randomBytes(6).toString("hex")}`;
    await PostgresRateLimitStore(pool, { schema }).migrate();
    try {
      await replayAcrossInstances({ STORE: "postgres", DATABASE_URL, SCHEMA: schema });
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    }
  }, 60_000);
});
