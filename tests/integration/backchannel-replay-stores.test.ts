/**
 * Back-channel logout replays across processes: two app instances share a counter store
 * (`rateLimit.store`: Redis, or PostgreSQL) and a logout token delivered to one is refused by the
 * other. The logout tokens are signed by a real OpenID provider (oidc-provider, in this process)
 * whose JWKS both children fetch.
 */
import { spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PostgresRateLimitStore } from "@gatehouse/pg-adapter";
import { build } from "esbuild";
import { Redis } from "ioredis";
import type { JWTPayload } from "jose";
import { Pool } from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  type OidcServer,
  startOidcProvider,
} from "../../packages/core/test/support/oidc-server.js";

const FILE = "backchannel-replay-stores.test.ts";
const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const EVENT = "http://schemas.openid.net/event/backchannel-logout";

/** Whether `probe` succeeds within 2 s; prints why not (in CI the suite then runs and fails). */
async function reachable(what: string, probe: () => Promise<unknown>): Promise<boolean> {
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => setTimeout(() => reject(new Error("timed out")), 2000)),
    ]);
    return true;
  } catch (error) {
    if (process.env.CI === "true") return true;
    const reason = error instanceof Error ? error.message : String(error);
    console.warn(`${FILE}: skipped: ${what} unreachable (${reason})`);
    return false;
  }
}

const pool = new Pool({ connectionString: DATABASE_URL, max: 2 });
pool.on("error", () => {});
const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
redis.on("error", () => {});
const pgUp = await reachable("PostgreSQL", () => pool.query("SELECT 1"));
const redisUp = await reachable("Redis", async () => {
  await redis.connect();
  await redis.ping();
});

let op: OidcServer;
let childScript: string;
let bundleDir: string;

beforeAll(async () => {
  op = await startOidcProvider();
  const cache = fileURLToPath(new URL("../../node_modules/.cache", import.meta.url));
  mkdirSync(cache, { recursive: true });
  bundleDir = mkdtempSync(join(cache, "gh-backchannel-"));
  childScript = join(bundleDir, "child.mjs");
  await build({
    entryPoints: [fileURLToPath(new URL("./support/backchannel-child.ts", import.meta.url))],
    outfile: childScript,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    conditions: ["gatehouse-source"],
    logLevel: "warning",
    plugins: [
      {
        name: "external-node-modules",
        setup(b) {
          b.onResolve({ filter: /^[^./]/ }, (args) =>
            args.path.startsWith("@gatehouse/") ? undefined : { path: args.path, external: true },
          );
        },
      },
    ],
  });
}, 60_000);

afterAll(async () => {
  await op?.close();
  if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
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
function instance(storeEnv: Record<string, string>, tokens: string[]): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [childScript], {
      env: {
        ...process.env,
        ...storeEnv,
        ISSUER: op.issuer,
        CLIENT_ID: op.clients.basic.clientId,
        CLIENT_SECRET: op.clients.basic.clientSecret ?? "",
        TOKENS: JSON.stringify(tokens),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.stderr.on("data", (chunk) => {
      err += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`child exited with ${code}: ${err.slice(0, 2000)}`));
      else
        resolve(
          (JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as { statuses: number[] }).statuses,
        );
    });
  });
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
