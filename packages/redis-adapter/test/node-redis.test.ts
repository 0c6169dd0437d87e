import { runAdapterTests } from "@gatehousejs/adapter-test";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { RedisAdapter } from "../src/index.js";
import {
  deleteKeysUnder,
  ioredis,
  newSession,
  newUser,
  REDIS_URL,
  readers,
  redisUnavailable,
  uniquePrefix,
} from "./support.js";

const skip = await redisUnavailable("node-redis.test.ts");
const prefix = uniquePrefix("node-redis-contract");
// The adapter talks through node-redis; the suite's direct readers and the clean-up use ioredis.
const client = createClient({ url: REDIS_URL });
const direct = ioredis();
const adapter = RedisAdapter(client, { prefix });

describe.skipIf(skip)("node-redis", () => {
  beforeAll(async () => {
    await client.connect();
  });
  afterAll(async () => {
    await deleteKeysUnder(direct, prefix);
    await Promise.all([client.close(), direct.quit()]);
  });

  runAdapterTests({
    name: "redis (node-redis)",
    adapter,
    db: readers(direct, prefix),
  });

  test("sessions expire through a TTL with node-redis too", async () => {
    const user = await adapter.createUser(newUser());
    const session = await adapter.createSession(newSession(user.id, 60_000));
    const ttl = await direct.pttl(`${prefix}session:${session.sessionToken}`);
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    const found = await adapter.getSessionAndUser(session.sessionToken);
    expect(found?.user).toEqual(user);
    expect(found?.session.expires).toEqual(session.expires);
  });

  test("deleteAuthenticator drops the passkey from the user's set with node-redis too", async () => {
    const user = await adapter.createUser(newUser());
    const created = await adapter.createAuthenticator({
      credentialID: `node-${crypto.randomUUID()}`,
      credentialPublicKey: "cHVibGlj",
      counter: 0,
      credentialBackedUp: false,
      credentialDeviceType: "singleDevice",
      providerAccountId: "node",
      userId: user.id,
    });
    const set = `${prefix}user:${user.id}:authenticators`;
    expect(await direct.smembers(set)).toEqual([`${prefix}authenticator:${created.credentialID}`]);
    expect(await adapter.deleteAuthenticator(created.credentialID)).toEqual(created);
    expect(await direct.exists(set)).toBe(0);
    expect(await direct.exists(`${prefix}authenticator:${created.credentialID}`)).toBe(0);
    expect(await adapter.deleteAuthenticator(created.credentialID)).toBeNull();
    await adapter.deleteUser(user.id);
  });
});
