/**
 * getAccessToken across processes on the real stores: two child processes share one PostgreSQL
 * schema (or one Redis prefix) and call getAccessToken for one expired account at the same moment.
 * The provider (oidc-provider, in this process, rotating refresh tokens) counts the refresh
 * grants: exactly one is made, both processes get its access token, and the rotated refresh token
 * is stored once (the stored one is the live one: a later refresh with it succeeds).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Adapter, AdapterAccount } from "@gatehousejs/core/adapters";
import { migrate, PostgresAdapter } from "@gatehousejs/pg-adapter";
import { RedisAdapter } from "@gatehousejs/redis-adapter";
import { Redis } from "ioredis";
import { exportJWK, generateKeyPair } from "jose";
import Provider from "oidc-provider";
import { Pool } from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DATABASE_URL, REDIS_URL, serverUnavailable } from "./stores.js";
import { childProcesses } from "./support/children.js";

const CLIENT = { id: "rp-stores", secret: "rp-stores-secret-0123456789abcdef0123" };
const ACCOUNT_ID = "user-1";

/** Outside CI an unreachable server skips its block with the reason; in CI the block fails. */
async function usable(server: "PostgreSQL" | "Redis"): Promise<boolean> {
  const why = await serverUnavailable(server);
  if (why && process.env.CI !== "true")
    console.warn(`access-token-stores.test.ts: skipped: ${why}`);
  return !why || process.env.CI === "true";
}

const pgUp = await usable("PostgreSQL");
const redisUp = await usable("Redis");
const pool = new Pool({ connectionString: DATABASE_URL, max: 2 });
pool.on("error", () => {});
const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
redis.on("error", () => {});
const children = childProcesses("access-token");

/** oidc-provider on 127.0.0.1 that rotates refresh tokens and counts refresh grants. */
let issuer: string;
let provider: Provider;
let refreshGrants = 0;
let closeProvider: () => void;

beforeAll(async () => {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method === "POST" && req.url?.startsWith("/token")) refreshGrants++;
    callback(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        redirect_uris: ["http://localhost:3000/auth/callback/oidc"],
      },
    ],
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: "s1", alg: "RS256", use: "sig" }] },
    cookies: { keys: ["access-token-stores-cookie-key-0123456789"] },
    scopes: ["openid", "offline_access"],
    rotateRefreshToken: true,
    features: { devInteractions: { enabled: false } },
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    ttl: { AccessToken: 300, IdToken: 300, RefreshToken: 3600, Grant: 3600 },
  });
  const callback = provider.callback();
  closeProvider = () => {
    server.close();
    server.closeAllConnections();
  };
  await children.bundle("access-token-child");
}, 60_000);

afterAll(async () => {
  closeProvider?.();
  await pool.end();
  redis.disconnect();
});

/** Mints a refresh token for `ACCOUNT_ID` in the provider's own store. */
async function mintRefreshToken(): Promise<string> {
  const grant = new provider.Grant({ accountId: ACCOUNT_ID, clientId: CLIENT.id });
  grant.addOIDCScope("openid offline_access");
  const grantId = await grant.save();
  const client = await provider.Client.find(CLIENT.id);
  const token = new provider.RefreshToken({
    accountId: ACCOUNT_ID,
    client: client!,
    grantId,
    scope: "openid offline_access",
    gty: "authorization_code",
  });
  return token.save();
}

type ChildResult =
  | { ok: true; token: { accessToken: string; expiresAt: number; tokenType: string } }
  | { ok: false; error: string };

/** Runs the child with `env`; resolves to its one JSON line. */
function runChild(env: Record<string, string>): Promise<ChildResult> {
  return children.run<ChildResult>("access-token-child", env);
}

/** Two children at once against one store; the checks are the same for every store. */
async function raceTwoProcesses(adapter: Adapter, storeEnv: Record<string, string>) {
  const userId = randomUUID();
  await adapter.createUser!({ id: userId, email: `${userId}@example.com`, emailVerified: null });
  const refreshToken = await mintRefreshToken();
  const key = { provider: "oidc", providerAccountId: ACCOUNT_ID };
  const account: AdapterAccount = {
    ...key,
    userId,
    type: "oidc",
    access_token: "old-access-token",
    token_type: "bearer",
    expires_at: Math.floor(Date.now() / 1000) - 10,
    refresh_token: refreshToken,
  };
  await adapter.linkAccount!(account);
  refreshGrants = 0;
  const env = {
    ...storeEnv,
    ISSUER: issuer,
    CLIENT_ID: CLIENT.id,
    CLIENT_SECRET: CLIENT.secret,
    USER_ID: userId,
    // Far enough ahead for both processes to have loaded and connected.
    START_AT: String(Date.now() + 1500),
  };
  const results = await Promise.all([runChild(env), runChild(env)]);
  expect(results.map((r) => r.ok)).toEqual([true, true]);
  const [a, b] = results as Extract<ChildResult, { ok: true }>[];
  expect(refreshGrants).toBe(1);
  expect(a!.token.accessToken).not.toBe("old-access-token");
  expect(a!.token).toEqual(b!.token);

  const stored = await adapter.getAccount!(ACCOUNT_ID, "oidc");
  expect(stored?.access_token).toBe(a!.token.accessToken);
  expect(stored?.refresh_token).toEqual(expect.any(String));
  expect(stored?.refresh_token).not.toBe(refreshToken);
  expect(stored?.error ?? null).toBeNull();
  // The stored refresh token is the one the provider rotated to: it is accepted, while the
  // original one (consumed by the single grant) is not. In this order: oidc-provider revokes the
  // whole grant when a consumed refresh token comes back.
  const grant = async (token: string) => {
    const response = await fetch(`${issuer}/token`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${Buffer.from(`${CLIENT.id}:${CLIENT.secret}`).toString("base64")}`,
      },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: token }),
    });
    return response.status;
  };
  expect(await grant(stored!.refresh_token!)).toBe(200);
  expect(await grant(refreshToken)).toBe(400);
}

describe.skipIf(!pgUp)("getAccessToken from two processes on one PostgreSQL", () => {
  const schema = `gh_tokens_${randomBytes(6).toString("hex")}`;
  afterAll(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  });

  test("exactly one refresh grant; both get the new token; the rotated token stored once", async () => {
    await migrate(pool, { schema });
    await raceTwoProcesses(PostgresAdapter(pool, { schema }), {
      STORE: "postgres",
      DATABASE_URL,
      SCHEMA: schema,
    });
  }, 60_000);
});

describe.skipIf(!redisUp)("getAccessToken from two processes on one Redis", () => {
  const prefix = `gh-tokens-${randomBytes(6).toString("hex")}:`;
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  });

  test("exactly one refresh grant; both get the new token; the rotated token stored once", async () => {
    await raceTwoProcesses(RedisAdapter(redis, { prefix }), {
      STORE: "redis",
      REDIS_URL,
      PREFIX: prefix,
    });
  }, 60_000);
});
