import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import { afterAll, describe, expect, test } from "vitest";
import { RedisAdapter } from "../src/index.js";
import {
  deleteKeysUnder,
  ioredis,
  keysUnder,
  newAccount,
  newSession,
  newUser,
  redisUnavailable,
  uniquePrefix,
} from "./support.js";

const skip = await redisUnavailable("redis.test.ts");
const prefix = uniquePrefix("behaviour");
const client = ioredis();
const adapter = RedisAdapter(client, { prefix });
const HOUR = 3_600_000;

/** The key's PTTL says it expires at `expires` (give or take the time the check takes). */
async function expectExpiry(key: string, expires: Date) {
  const before = Date.now();
  const ttl = await client.pttl(key);
  expect(ttl, `PTTL of ${key}`).toBeGreaterThan(0);
  expect(before + ttl).toBeGreaterThan(expires.getTime() - 1000);
  expect(before + ttl).toBeLessThanOrEqual(expires.getTime() + 1000);
}

describe.skipIf(skip)("RedisAdapter on a real Redis", () => {
  afterAll(async () => {
    await deleteKeysUnder(client, prefix);
    await client.quit();
  });

  describe("key layout", () => {
    test("rows live under the documented keys, with the documented types", async () => {
      const user = await adapter.createUser(newUser());
      const account = await adapter.linkAccount(newAccount(user.id));
      const session = await adapter.createSession(newSession(user.id));
      await adapter.createVerificationToken({
        identifier: user.email,
        token: "hashed-token",
        expires: new Date(Date.now() + HOUR),
      });
      await adapter.createAuthenticator({
        credentialID: "cred-1",
        credentialPublicKey: "cHVibGlj",
        counter: 0,
        credentialBackedUp: false,
        credentialDeviceType: "singleDevice",
        providerAccountId: account.providerAccountId,
        transports: "internal",
        userId: user.id,
      });
      const p = prefix;
      const expected: Record<string, string> = {
        [`${p}user:${user.id}`]: "string",
        [`${p}user:email:${user.email}`]: "string",
        [`${p}account:redis-test:${account.providerAccountId}`]: "string",
        [`${p}user:${user.id}:accounts`]: "set",
        [`${p}session:${session.sessionToken}`]: "string",
        [`${p}user:${user.id}:sessions`]: "zset",
        [`${p}verification:${user.email}:hashed-token`]: "string",
        [`${p}authenticator:cred-1`]: "string",
        [`${p}user:${user.id}:authenticators`]: "set",
      };
      for (const [key, type] of Object.entries(expected)) {
        expect(await client.type(key), key).toBe(type);
      }
      expect(await client.get(`${p}user:email:${user.email}`)).toBe(user.id);
      expect(
        await client.zscore(`${p}user:${user.id}:sessions`, `${p}session:${session.sessionToken}`),
      ).toBe(String(session.expires.getTime()));
      await adapter.deleteUser(user.id);
    });

    test("ids containing ':' or '%' cannot collide with other keys", async () => {
      const plain = await adapter.createUser(newUser({ email: "collide@example.com" }));
      const tricky = await adapter.createUser(newUser({ id: "email:collide@example.com" }));
      const percent = await adapter.createUser(newUser({ id: "email%3Acollide@example.com" }));
      expect(await adapter.getUser(tricky.id)).toEqual(tricky);
      expect(await adapter.getUser(percent.id)).toEqual(percent);
      expect(await adapter.getUserByEmail("collide@example.com")).toEqual(plain);

      const left = newAccount(plain.id, { provider: "a:b", providerAccountId: "c" });
      const right = newAccount(tricky.id, { provider: "a", providerAccountId: "b:c" });
      await adapter.linkAccount(left);
      await adapter.linkAccount(right);
      expect(await adapter.getUserByAccount(left)).toEqual(plain);
      expect(await adapter.getUserByAccount(right)).toEqual(tricky);

      const session = await adapter.createSession(newSession(tricky.id));
      expect((await adapter.getSessionAndUser(session.sessionToken))?.user).toEqual(tricky);
      await adapter.deleteUser(tricky.id);
      expect(await adapter.getSessionAndUser(session.sessionToken)).toBeNull();
      expect(await adapter.getUserByAccount(right)).toBeNull();
      expect(await adapter.getUserByAccount(left)).toEqual(plain);
      expect(await adapter.getUserByEmail("collide@example.com")).toEqual(plain);
      await adapter.deleteUser(plain.id);
      await adapter.deleteUser(percent.id);
    });
  });

  describe("values", () => {
    test("Dates come back as Dates, expires_at as a number, extra Date fields as Dates", async () => {
      const emailVerified = new Date("2026-01-02T03:04:05.678Z");
      const createdAt = new Date("2025-12-31T23:59:59.999Z");
      const input = { ...newUser({ emailVerified }), createdAt };
      const user = await adapter.createUser(input);
      const stored = (await adapter.getUser(user.id)) as unknown as Record<string, unknown>;
      expect(stored["emailVerified"]).toEqual(emailVerified);
      expect(stored["createdAt"]).toEqual(createdAt);
      expect(stored["name"]).toBe("Redis Test");

      const account = newAccount(user.id, { expires_at: 2 ** 31 + 7, session_state: "2026-01-02" });
      await adapter.linkAccount(account);
      const got = await adapter.getAccount(account.providerAccountId, account.provider);
      expect(got?.expires_at).toBe(2 ** 31 + 7);
      expect(got?.["session_state"]).toBe("2026-01-02");
      await adapter.deleteUser(user.id);
    });

    test('the empty email means "no email": never indexed, never found, never a duplicate', async () => {
      const first = await adapter.createUser(newUser({ email: "" }));
      const second = await adapter.createUser(newUser({ email: "" }));
      expect(await adapter.getUserByEmail("")).toBeNull();
      expect(await client.exists(`${prefix}user:email:`)).toBe(0);
      const named = await adapter.updateUser({ id: first.id, email: "was-empty@example.com" });
      expect(await adapter.getUserByEmail("was-empty@example.com")).toEqual(named);
      await adapter.updateUser({ id: first.id, email: "" });
      expect(await adapter.getUserByEmail("was-empty@example.com")).toBeNull();
      expect(await client.exists(`${prefix}user:email:was-empty@example.com`)).toBe(0);
      await adapter.deleteUser(first.id);
      await adapter.deleteUser(second.id);
    });
  });

  describe("email index", () => {
    test("updateUser moves the email index in one step", async () => {
      const user = await adapter.createUser(newUser());
      const moved = await adapter.updateUser({ id: user.id, email: `moved-${user.email}` });
      expect(await adapter.getUserByEmail(user.email)).toBeNull();
      expect(await client.exists(`${prefix}user:email:${user.email}`)).toBe(0);
      expect(await adapter.getUserByEmail(moved.email)).toEqual(moved);
      await adapter.deleteUser(user.id);
    });

    test("a taken email makes createUser and updateUser reject and change nothing", async () => {
      const owner = await adapter.createUser(newUser());
      await expect(adapter.createUser(newUser({ email: owner.email }))).rejects.toThrow(
        /already exists/,
      );
      const other = await adapter.createUser(newUser());
      await expect(adapter.updateUser({ id: other.id, email: owner.email })).rejects.toThrow(
        /already has this email/,
      );
      expect(await adapter.getUser(other.id)).toEqual(other);
      expect(await adapter.getUserByEmail(other.email)).toEqual(other);
      expect(await adapter.getUserByEmail(owner.email)).toEqual(owner);
      await adapter.deleteUser(owner.id);
      await adapter.deleteUser(other.id);
    });

    test("of 10 simultaneous createUser calls with one email, exactly one succeeds", async () => {
      const email = `race-${crypto.randomUUID()}@example.com`;
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, () => adapter.createUser(newUser({ email }))),
      );
      const created = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
      expect(created).toHaveLength(1);
      expect(await adapter.getUserByEmail(email)).toEqual(created[0]);
      await adapter.deleteUser(created[0]!.id);
    });

    test("updateUser of an unknown user rejects", async () => {
      await expect(adapter.updateUser({ id: crypto.randomUUID(), name: "x" })).rejects.toThrow(
        /no user/,
      );
    });
  });

  describe("concurrency", () => {
    test("50 simultaneous useVerificationToken calls: exactly one gets the token", async () => {
      const token = {
        identifier: "race@example.com",
        token: crypto.randomUUID(),
        expires: new Date(Date.now() + HOUR),
      };
      await adapter.createVerificationToken(token);
      const results = await Promise.all(
        Array.from({ length: 50 }, () => adapter.useVerificationToken(token)),
      );
      const winners = results.filter((r) => r !== null);
      expect(winners).toEqual([token]);
      expect(results.filter((r) => r === null)).toHaveLength(49);
    });

    test("10 simultaneous linkAccount calls for one account: one succeeds, the others reject", async () => {
      const user = await adapter.createUser(newUser());
      const account = newAccount(user.id);
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, () => adapter.linkAccount({ ...account })),
      );
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      for (const r of results.filter((r) => r.status === "rejected")) {
        expect((r as PromiseRejectedResult).reason).toBeInstanceOf(Error);
        expect(String((r as PromiseRejectedResult).reason)).toMatch(/already linked/);
      }
      expect(await client.scard(`${prefix}user:${user.id}:accounts`)).toBe(1);
      await adapter.deleteUser(user.id);
    });

    test("10 simultaneous deleteAuthenticator calls for one passkey: exactly one gets it", async () => {
      const user = await adapter.createUser(newUser());
      const created = await adapter.createAuthenticator({
        credentialID: `race-${crypto.randomUUID()}`,
        credentialPublicKey: "cHVibGlj",
        counter: 0,
        credentialBackedUp: false,
        credentialDeviceType: "singleDevice",
        providerAccountId: "race",
        userId: user.id,
      });
      const results = await Promise.all(
        Array.from({ length: 10 }, () => adapter.deleteAuthenticator(created.credentialID)),
      );
      expect(results.filter((r) => r !== null)).toEqual([created]);
      expect(await client.exists(`${prefix}user:${user.id}:authenticators`)).toBe(0);
      await adapter.deleteUser(user.id);
    });

    test("simultaneous updateSession and updateUser calls all land (no lost update)", async () => {
      const user = await adapter.createUser(newUser());
      const session = await adapter.createSession(newSession(user.id));
      const base = Date.now() + HOUR;
      const expiries = Array.from({ length: 10 }, (_, i) => new Date(base + i * 1000));
      await Promise.all([
        ...expiries.map((expires) =>
          adapter.updateSession({ sessionToken: session.sessionToken, expires }),
        ),
        adapter.updateUser({ id: user.id, name: "renamed" }),
        adapter.updateUser({ id: user.id, image: "https://example.com/i.png" }),
      ]);
      const stored = await adapter.getUser(user.id);
      expect(stored).toMatchObject({ name: "renamed", image: "https://example.com/i.png" });
      const found = await adapter.getSessionAndUser(session.sessionToken);
      expect(expiries.map((e) => e.getTime())).toContain(found?.session.expires.getTime());
      await adapter.deleteUser(user.id);
    });
  });

  describe("TTLs", () => {
    test("a session key expires at its `expires`, and updateSession moves the TTL", async () => {
      const user = await adapter.createUser(newUser());
      const session = await adapter.createSession(newSession(user.id, HOUR));
      const key = `${prefix}session:${session.sessionToken}`;
      const index = `${prefix}user:${user.id}:sessions`;
      const ttl = await client.pttl(key);
      expect(ttl).toBeLessThanOrEqual(HOUR);
      expect(ttl).toBeGreaterThan(HOUR - 10_000);
      await expectExpiry(key, session.expires);

      const later = new Date(Date.now() + 5 * HOUR);
      const updated = await adapter.updateSession({
        sessionToken: session.sessionToken,
        expires: later,
      });
      expect(updated?.expires).toEqual(later);
      await expectExpiry(key, later);
      // The user's session index lives as long as the user's last session.
      await expectExpiry(index, later);
      await adapter.deleteUser(user.id);
    });

    test("a session created already expired is not stored and reads as null", async () => {
      const user = await adapter.createUser(newUser());
      const session = await adapter.createSession(newSession(user.id, -1000));
      expect(await adapter.getSessionAndUser(session.sessionToken)).toBeNull();
      expect(await client.exists(`${prefix}session:${session.sessionToken}`)).toBe(0);
      expect(await client.exists(`${prefix}user:${user.id}:sessions`)).toBe(0);
      await adapter.deleteUser(user.id);
    });

    test("a verification token 1.5 s from expiry is gone after 2 s", async () => {
      const token = {
        identifier: "ttl@example.com",
        token: crypto.randomUUID(),
        expires: new Date(Date.now() + 1500),
      };
      await adapter.createVerificationToken(token);
      const key = `${prefix}verification:${token.identifier}:${token.token}`;
      await expectExpiry(key, token.expires);
      await sleep(token.expires.getTime() + 500 - Date.now());
      expect(await client.exists(key)).toBe(0);
      expect(await adapter.useVerificationToken(token)).toBeNull();
    });
  });

  describe("deleteUser", () => {
    test("leaves no key that names the user, and keeps other users' keys", async () => {
      const user = await adapter.createUser(newUser());
      const other = await adapter.createUser(newUser());
      for (const owner of [user, other]) {
        const account = await adapter.linkAccount(newAccount(owner.id));
        await adapter.linkAccount(newAccount(owner.id, { provider: "second" }));
        await adapter.createSession(newSession(owner.id));
        await adapter.createSession(newSession(owner.id));
        await adapter.createAuthenticator({
          credentialID: crypto.randomUUID(),
          credentialPublicKey: "cHVibGlj",
          counter: 1,
          credentialBackedUp: true,
          credentialDeviceType: "multiDevice",
          providerAccountId: account.providerAccountId,
          userId: owner.id,
        });
      }
      const before = await keysUnder(client, prefix);
      const deleted = await adapter.deleteUser(user.id);
      expect(deleted).toEqual(user);

      const after = await keysUnder(client, prefix);
      expect(after.filter((k) => k.includes(user.id) || k.includes(user.email))).toEqual([]);
      for (const key of after) {
        const type = await client.type(key);
        if (type === "string") expect(await client.get(key)).not.toContain(user.id);
      }
      const otherKeys = before.filter((k) => k.includes(other.id) || k.includes(other.email));
      expect(otherKeys).toHaveLength(5); // the user, its email index and its three sets
      for (const key of otherKeys) expect(await client.exists(key), key).toBe(1);
      expect(await adapter.listAuthenticatorsByUserId(other.id)).toHaveLength(1);
      expect(await adapter.deleteUser(user.id)).toBeNull();
      await adapter.deleteUser(other.id);
    });
  });

  describe("a user's sets", () => {
    test("list only rows that still belong to the user, whatever the set holds", async () => {
      const user = await adapter.createUser(newUser());
      const other = await adapter.createUser(newUser());
      const mine = await adapter.linkAccount(newAccount(user.id));
      const theirs = await adapter.linkAccount(newAccount(other.id));
      await adapter.createAuthenticator({
        credentialID: "their-cred",
        credentialPublicKey: "cHVibGlj",
        counter: 0,
        credentialBackedUp: false,
        credentialDeviceType: "singleDevice",
        providerAccountId: theirs.providerAccountId,
        userId: other.id,
      });
      // Entries naming another user's rows (a set edited by hand, a bug of an older version).
      const p = prefix;
      await client.sadd(
        `${p}user:${user.id}:accounts`,
        `${p}account:redis-test:${theirs.providerAccountId}`,
      );
      await client.sadd(`${p}user:${user.id}:authenticators`, `${p}authenticator:their-cred`);

      expect(await adapter.listAccountsByUserId(user.id)).toEqual([mine]);
      expect(await adapter.listAuthenticatorsByUserId(user.id)).toEqual([]);
      expect(await adapter.listAccountsByUserId(other.id)).toEqual([theirs]);
      expect(await adapter.listAuthenticatorsByUserId(other.id)).toHaveLength(1);
      await adapter.deleteUser(user.id);
      await adapter.deleteUser(other.id);
    });

    test("deleteAuthenticator drops the key and its entry in the user's set, and nothing else", async () => {
      const user = await adapter.createUser(newUser());
      const passkey = (credentialID: string) => ({
        credentialID,
        credentialPublicKey: "cHVibGlj",
        counter: 0,
        credentialBackedUp: false,
        credentialDeviceType: "singleDevice",
        providerAccountId: credentialID,
        userId: user.id,
      });
      const gone = `gone-${crypto.randomUUID()}`;
      const kept = `kept-${crypto.randomUUID()}`;
      await adapter.createAuthenticator(passkey(gone));
      await adapter.createAuthenticator(passkey(kept));
      const set = `${prefix}user:${user.id}:authenticators`;

      expect(await adapter.deleteAuthenticator(gone)).toEqual(passkey(gone));
      expect(await client.exists(`${prefix}authenticator:${gone}`)).toBe(0);
      expect(await client.smembers(set)).toEqual([`${prefix}authenticator:${kept}`]);
      expect(await adapter.deleteAuthenticator(gone)).toBeNull();
      expect(await client.smembers(set)).toEqual([`${prefix}authenticator:${kept}`]);

      expect(await adapter.deleteAuthenticator(kept)).toEqual(passkey(kept));
      expect(await client.exists(set)).toBe(0);
      expect(await client.exists(`${prefix}user:${user.id}`)).toBe(1);
      await adapter.deleteUser(user.id);
    });
  });

  describe("round trips and errors", () => {
    test("getSessionAndUser is one command, and works after SCRIPT FLUSH", async () => {
      const user = await adapter.createUser(newUser());
      const session = await adapter.createSession(newSession(user.id));
      let commands = 0;
      const counting = new Proxy(client, {
        get(target, name, receiver) {
          const value = Reflect.get(target, name, receiver);
          if (name !== "call" || typeof value !== "function") return value;
          return (...args: unknown[]) => {
            commands++;
            return value.apply(target, args);
          };
        },
      });
      const counted = RedisAdapter(counting, { prefix });
      await counted.getSessionAndUser(session.sessionToken); // loads the script if needed
      commands = 0;
      expect((await counted.getSessionAndUser(session.sessionToken))?.user).toEqual(user);
      expect(commands).toBe(1);

      await client.script("FLUSH");
      expect((await counted.getSessionAndUser(session.sessionToken))?.user).toEqual(user);
      await adapter.deleteUser(user.id);
    });

    test("absent rows are null; a missing authenticator makes updateAuthenticatorCounter reject", async () => {
      const id = crypto.randomUUID();
      expect(await adapter.getUser(id)).toBeNull();
      expect(await adapter.getUserByEmail(`${id}@example.com`)).toBeNull();
      expect(await adapter.getUserByAccount({ provider: "x", providerAccountId: id })).toBeNull();
      expect(await adapter.getAccount(id, "x")).toBeNull();
      expect(await adapter.getSessionAndUser(id)).toBeNull();
      expect(await adapter.updateSession({ sessionToken: id, expires: new Date() })).toBeNull();
      expect(await adapter.deleteSession(id)).toBeNull();
      expect(await adapter.useVerificationToken({ identifier: id, token: id })).toBeNull();
      expect(await adapter.getAuthenticator(id)).toBeNull();
      expect(await adapter.deleteUser(id)).toBeNull();
      await expect(adapter.updateAuthenticatorCounter(id, 2)).rejects.toThrow(/no authenticator/);
    });

    test("rows that point at a missing user are refused", async () => {
      const ghost = crypto.randomUUID();
      await expect(adapter.linkAccount(newAccount(ghost))).rejects.toThrow(/does not exist/);
      await expect(adapter.createSession(newSession(ghost))).rejects.toThrow(/does not exist/);
      expect(await keysUnder(client, `${prefix}user:${ghost}`)).toEqual([]);
    });

    test("Redis errors reach the caller", async () => {
      // Nothing listens on port 1: the connection is refused and the command rejects.
      const nowhere = new Redis({ port: 1, lazyConnect: true, retryStrategy: () => null });
      nowhere.on("error", () => {});
      const broken = RedisAdapter(nowhere, { prefix });
      await expect(broken.getUser("anyone")).rejects.toThrow();
      await expect(broken.createUser(newUser())).rejects.toThrow();
      nowhere.disconnect();
      expect(() => RedisAdapter({} as never)).toThrow(/ioredis|node-redis/);
    });
  });
});
