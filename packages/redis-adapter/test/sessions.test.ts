/**
 * Session records (issue 12) on a real Redis: the per-user index of session tokens is cleaned
 * lazily and holds nothing past the last session; RedisRevocationStore checks in one command and
 * every key it writes carries a TTL at the expiry of the sessions it concerns.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, test } from "vitest";
import { RedisAdapter, RedisRevocationStore } from "../src/index.js";
import {
  deleteKeysUnder,
  ioredis,
  keysUnder,
  newSession,
  newUser,
  redisUnavailable,
  uniquePrefix,
} from "./support.js";

const skip = await redisUnavailable("sessions.test.ts");
const prefix = uniquePrefix("sessions");
const client = ioredis();
const HOUR = 3_600_000;

afterAll(async () => {
  if (!skip) await deleteKeysUnder(client, prefix);
  client.disconnect();
});

describe.skipIf(skip)("session records on Redis", () => {
  const adapter = RedisAdapter(client, { prefix });

  test("the user's index drops expired sessions lazily and is gone with the last one", async () => {
    const user = await adapter.createUser(newUser());
    const short = { ...newSession(user.id), expires: new Date(Date.now() + 300) };
    const long = { ...newSession(user.id), expires: new Date(Date.now() + HOUR) };
    await adapter.createSession(short);
    await adapter.createSession({ ...long, client: "Chrome 131 on macOS", createdAt: new Date() });
    const index = `${prefix}user:${user.id}:sessions`;
    expect(await client.zcard(index)).toBe(2);
    await sleep(400);
    // The session key expired by TTL; the index still names it until the next listing.
    const listed = await adapter.listSessionsByUserId(user.id);
    expect(listed.map((s) => s.sessionToken)).toEqual([long.sessionToken]);
    expect(listed[0]?.client).toBe("Chrome 131 on macOS");
    expect(listed[0]?.createdAt).toBeInstanceOf(Date);
    expect(await client.zcard(index)).toBe(1);
    const ttl = await client.pttl(index);
    expect(ttl).toBeGreaterThan(HOUR - 60_000);
    expect(ttl).toBeLessThanOrEqual(HOUR);

    expect(await adapter.deleteSessionsByUserId(user.id)).toBe(1);
    expect(await client.exists(index)).toBe(0);
    expect(await adapter.getSessionAndUser(long.sessionToken)).toBeNull();
  });

  test("deleteSessionsByUserId leaves a session that moved to another user alone", async () => {
    const [a, b] = [await adapter.createUser(newUser()), await adapter.createUser(newUser())];
    const moved = newSession(a.id);
    await adapter.createSession(moved);
    await adapter.updateSession({ sessionToken: moved.sessionToken, userId: b.id });
    expect(await adapter.deleteSessionsByUserId(a.id)).toBe(0);
    expect((await adapter.listSessionsByUserId(b.id)).map((s) => s.sessionToken)).toEqual([
      moved.sessionToken,
    ]);
  });
});

describe.skipIf(skip)("RedisRevocationStore", () => {
  const storePrefix = `${prefix}rev:`;

  test("check is one command (MGET), however many revocations there are", async () => {
    const commands: string[] = [];
    const counted = {
      call: (command: string, ...args: (string | number)[]) => {
        commands.push(command);
        return client.call(command, ...args);
      },
    };
    const store = RedisRevocationStore(counted, { prefix: storePrefix });
    const userId = crypto.randomUUID();
    const expires = new Date(Date.now() + HOUR);
    await store.revokeSession({ userId, sessionId: "a".repeat(22), expires });
    await store.revokeUser({ userId, at: 100, except: "b".repeat(22), expires });
    commands.length = 0;
    expect(await store.check({ userId, sessionId: "a".repeat(22), issuedAt: 1000 })).toBe(true);
    expect(await store.check({ userId, sessionId: "c".repeat(22), issuedAt: 50 })).toBe(true);
    expect(await store.check({ userId, sessionId: "b".repeat(22), issuedAt: 50 })).toBe(false);
    expect(await store.check({ userId, sessionId: "c".repeat(22), issuedAt: 1000 })).toBe(false);
    expect(commands).toEqual(["MGET", "MGET", "MGET", "MGET"]);
  });

  test("every key carries a TTL at the latest expiry it concerns, never shortened", async () => {
    const store = RedisRevocationStore(client, { prefix: storePrefix });
    const userId = crypto.randomUUID();
    const soon = new Date(Date.now() + 60_000);
    const late = new Date(Date.now() + HOUR);
    await store.revokeSession({ userId, sessionId: "x".repeat(22), expires: late });
    await store.revokeSession({ userId, sessionId: "x".repeat(22), expires: soon });
    await store.revokeUser({ userId, at: 1, expires: late });
    await store.revokeUser({ userId, at: 2, expires: soon });
    await store.recordSession({
      userId,
      sessionId: "y".repeat(22),
      expires: late,
      createdAt: new Date(),
    });
    const keys = await keysUnder(client, `${storePrefix}`);
    const mine = keys.filter((k) => k.includes(userId));
    expect(mine.length).toBe(4); // revoked, epoch, records hash, its expiry set
    for (const key of mine) {
      const ttl = await client.pttl(key);
      expect(ttl, key).toBeGreaterThan(HOUR - 60_000);
      expect(ttl, key).toBeLessThanOrEqual(HOUR);
    }
  });

  test("a user id with ':' or '%' cannot reach another user's keys", async () => {
    const store = RedisRevocationStore(client, { prefix: storePrefix });
    const expires = new Date(Date.now() + HOUR);
    await store.revokeSession({ userId: "a:b", sessionId: "c", expires });
    expect(await store.check({ userId: "a", sessionId: "b:c", issuedAt: 1 })).toBe(false);
    expect(await store.check({ userId: "a:b", sessionId: "c", issuedAt: 1 })).toBe(true);
  });
});
