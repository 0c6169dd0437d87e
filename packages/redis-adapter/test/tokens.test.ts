/**
 * updateAccount (compare-and-swap on the refresh token) and lockAccount on a real Redis, through
 * ioredis and node-redis.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { RedisAdapter, RedisRevocationStore } from "../src/index.js";
import {
  deleteKeysUnder,
  ioredis,
  keysUnder,
  newAccount,
  newUser,
  REDIS_URL,
  redisUnavailable,
  uniquePrefix,
} from "./support.js";

const skip = await redisUnavailable("tokens.test.ts");
const prefix = uniquePrefix("tokens");
const io = ioredis();
const node = createClient({ url: REDIS_URL });

describe.skipIf(skip)("provider token methods on a real Redis", () => {
  beforeAll(async () => {
    await node.connect();
  });
  afterAll(async () => {
    await deleteKeysUnder(io, prefix);
    await io.quit();
    await node.quit();
  });

  for (const [name, client] of [
    ["ioredis", io],
    ["node-redis", node],
  ] as const) {
    describe(name, () => {
      const adapter = RedisAdapter(client, { prefix });

      test("updateAccount merges the fields given; with ifRefreshToken only over that token", async () => {
        const user = await adapter.createUser(newUser());
        const account = await adapter.linkAccount(newAccount(user.id, { refresh_token: "r1" }));
        const key = { provider: account.provider, providerAccountId: account.providerAccountId };
        const updated = await adapter.updateAccount(
          { ...key, access_token: "a2", refresh_token: "r2", expires_at: 1_900_000_000 },
          { ifRefreshToken: "r1" },
        );
        expect(updated).toEqual({
          ...account,
          access_token: "a2",
          refresh_token: "r2",
          expires_at: 1_900_000_000,
        });
        expect(
          await adapter.updateAccount({ ...key, access_token: "a3" }, { ifRefreshToken: "r1" }),
        ).toBeNull();
        expect(await adapter.getAccount(key.providerAccountId, key.provider)).toEqual(updated);
        // The marker a refused refresh leaves, then cleared; identity fields never change.
        expect(
          await adapter.updateAccount({ ...key, error: "RefreshTokenError", userId: "someone" }),
        ).toEqual({ ...updated, error: "RefreshTokenError" });
        const cleared = await adapter.updateAccount({ ...key, error: null });
        expect(cleared).toEqual(updated);
        expect(cleared).not.toHaveProperty("error");
        // `null` matches an account with no stored refresh token, and only that.
        expect(
          await adapter.updateAccount({ ...key, scope: "b" }, { ifRefreshToken: null }),
        ).toBeNull();
        const bare = await adapter.linkAccount(newAccount(user.id));
        const bareKey = { provider: bare.provider, providerAccountId: bare.providerAccountId };
        expect(
          await adapter.updateAccount({ ...bareKey, scope: "a" }, { ifRefreshToken: null }),
        ).toEqual({ ...bare, scope: "a" });
        expect(
          await adapter.updateAccount({ provider: "redis-test", providerAccountId: "nobody" }),
        ).toBeNull();
        // The user's account list sees the update.
        expect(await adapter.listAccountsByUserId(user.id)).toContainEqual(updated);
      });

      test("20 concurrent compare-and-swap updates over one refresh token: exactly one writes", async () => {
        const user = await adapter.createUser(newUser());
        const account = await adapter.linkAccount(newAccount(user.id, { refresh_token: "old" }));
        const key = { provider: account.provider, providerAccountId: account.providerAccountId };
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            adapter.updateAccount({ ...key, refresh_token: `new-${i}` }, { ifRefreshToken: "old" }),
          ),
        );
        const winners = results.filter((r) => r !== null);
        expect(winners).toHaveLength(1);
        const stored = await adapter.getAccount(key.providerAccountId, key.provider);
        expect(stored?.refresh_token).toBe(winners[0]?.refresh_token);
      });

      test("40 concurrent unconditional updates of one account all land (repeat sign-ins)", async () => {
        const user = await adapter.createUser(newUser());
        const account = await adapter.linkAccount(newAccount(user.id, { refresh_token: "r" }));
        const key = { provider: account.provider, providerAccountId: account.providerAccountId };
        const results = await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            adapter.updateAccount({ ...key, access_token: `a-${i}`, error: null }),
          ),
        );
        expect(results.every((r) => r !== null)).toBe(true);
        const stored = await adapter.getAccount(key.providerAccountId, key.provider);
        expect(results.map((r) => r?.access_token)).toContain(stored?.access_token);
      });

      test("sessions and the revocation store's records keep providerSid", async () => {
        const user = await adapter.createUser(newUser());
        const expires = new Date(Date.now() + 3_600_000);
        const token = crypto.randomUUID();
        await adapter.createSession({
          sessionToken: token,
          userId: user.id,
          expires,
          providerSid: "s1",
        });
        expect((await adapter.getSessionAndUser(token))?.session.providerSid).toBe("s1");
        const plain = crypto.randomUUID();
        await adapter.createSession({ sessionToken: plain, userId: user.id, expires });
        await adapter.updateSession({ sessionToken: plain, providerSid: "s2" });
        const listed = await adapter.listSessionsByUserId(user.id);
        expect(listed.map((x) => x.providerSid).sort()).toEqual(["s1", "s2"]);

        const store = RedisRevocationStore(client, { prefix });
        await store.recordSession({ userId: user.id, sessionId: "j1", expires, providerSid: "op" });
        await store.recordSession({
          userId: user.id,
          sessionId: "j1",
          expires,
          lastSeenAt: new Date(),
        });
        const records = await store.listSessions(user.id);
        expect(records.find((r) => r.sessionId === "j1")?.providerSid).toBe("op");
      });

      test("lockAccount: one holder at a time, released by its holder, expires by itself", async () => {
        const key = { provider: "redis-test", providerAccountId: crypto.randomUUID() };
        const attempts = await Promise.all(
          Array.from({ length: 10 }, () => adapter.lockAccount(key, 60_000)),
        );
        const held = attempts.filter((r) => r !== null);
        expect(held).toHaveLength(1);
        const other = await adapter.lockAccount({ ...key, providerAccountId: "other" }, 60_000);
        expect(other).toBeTypeOf("function");
        await other?.();
        await held[0]?.();
        const again = await adapter.lockAccount(key, 200);
        expect(again).toBeTypeOf("function");
        expect(await adapter.lockAccount(key, 200)).toBeNull();
        await sleep(400);
        const taken = await adapter.lockAccount(key, 60_000);
        expect(taken).toBeTypeOf("function");
        // The expired holder's late release leaves the new holder's lock alone.
        await again?.();
        expect(await adapter.lockAccount(key, 60_000)).toBeNull();
        await taken?.();
        expect(
          (await keysUnder(io, prefix)).filter((k) => k.includes(key.providerAccountId)),
        ).toEqual([]);
        await expect(adapter.lockAccount(key, 0)).rejects.toThrow("positive ttlMs");
      });
    });
  }
});
