/**
 * The JWT revocation check's rules, one at a time: which session id and start time a token is
 * checked under (a token without `sid`, or without `auth_time`, from before session management),
 * which tokens cannot be revoked, the `maxStaleness` cache (how long an answer lasts, that it is
 * per store, that it holds at most 10,000 answers and drops the oldest first), and what a JWT
 * sign-in records in a store that keeps a list (nothing for a legacy token; a failing store is
 * logged and the sign-in still works). The memory store runs the published revocation store suite.
 */
import { runRevocationStoreTests } from "@gatehousejs/adapter-test";
import { MemoryRevocationStore } from "@gatehousejs/core/revocation/memory";
import type { AuthConfig } from "@gatehousejs/core/types";
import { afterEach, describe, expect, test, vi } from "vitest";
import type { RevocationStore } from "../src/lib/features/sessions/options.js";
import {
  forgetCachedChecks,
  isRevoked,
  jwtSessionId,
  jwtSessionStart,
} from "../src/lib/features/sessions/revocation.js";
import { credentialsConfig, Jar, type recordingLogger, signInAlice } from "./helpers.js";

afterEach(() => {
  vi.useRealTimers();
});

/** A store that answers `revoked` for everything and counts the checks per user and session. */
function countingStore(revoked = false) {
  const checks: string[] = [];
  const store: RevocationStore = {
    check: async ({ userId, sessionId, issuedAt }) => {
      checks.push(`${userId}/${sessionId}/${issuedAt}`);
      return revoked;
    },
    revokeSession: async () => {},
    revokeUser: async () => {},
  };
  return { store, checks };
}

runRevocationStoreTests({ name: "MemoryRevocationStore", store: MemoryRevocationStore() });

describe("the id and start a token is checked under", () => {
  test("a token's sid, or 'legacy' when it has none or an empty one", () => {
    expect(jwtSessionId({ sid: "abc" })).toBe("abc");
    expect(jwtSessionId({})).toBe("legacy");
    expect(jwtSessionId({ sid: "" })).toBe("legacy");
    expect(jwtSessionId({ sid: 7 } as never)).toBe("legacy");
  });

  test("auth_time when the token has it, else iat, else 0", () => {
    expect(jwtSessionStart({ auth_time: 100, iat: 200 })).toBe(100);
    expect(jwtSessionStart({ auth_time: 0, iat: 200 })).toBe(0);
    expect(jwtSessionStart({ iat: 200 })).toBe(200);
    expect(jwtSessionStart({ auth_time: "100", iat: 200 } as never)).toBe(200);
    expect(jwtSessionStart({ iat: "200" } as never)).toBe(0);
    expect(jwtSessionStart({})).toBe(0);
  });

  test("the store is asked with the user, the session id and the start", async () => {
    const { store, checks } = countingStore();
    await isRevoked({ store }, { sub: "u1", sid: "s1", auth_time: 100, iat: 200 });
    await isRevoked({ store }, { sub: "u1", iat: 300 });
    expect(checks).toEqual(["u1/s1/100", "u1/legacy/300"]);
  });

  test("a token without a subject, or with an empty one, is never revoked and costs no store call", async () => {
    const { store, checks } = countingStore(true);
    expect(await isRevoked({ store }, { sid: "s1" })).toBe(false);
    expect(await isRevoked({ store }, { sub: "", sid: "s1" })).toBe(false);
    expect(await isRevoked({ store }, { sub: 5, sid: "s1" } as never)).toBe(false);
    expect(checks).toEqual([]);
    expect(await isRevoked({ store }, { sub: "u1", sid: "s1" })).toBe(true);
  });
});

describe("maxStaleness", () => {
  test("an answer is reused until exactly maxStaleness has passed", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: 1_000_000 });
    const { store, checks } = countingStore();
    const options = { store, maxStaleness: 1000 };
    const token = { sub: "u1", sid: "s1" };
    await isRevoked(options, token);
    vi.setSystemTime(1_000_999);
    await isRevoked(options, token);
    expect(checks).toHaveLength(1);
    vi.setSystemTime(1_001_000);
    await isRevoked(options, token);
    expect(checks).toHaveLength(2);
  });

  test("a cached answer is the store's answer, revoked or not", async () => {
    const revoked = countingStore(true);
    const options = { store: revoked.store, maxStaleness: 60_000 };
    expect(await isRevoked(options, { sub: "u1", sid: "s1" })).toBe(true);
    expect(await isRevoked(options, { sub: "u1", sid: "s1" })).toBe(true);
    expect(revoked.checks).toHaveLength(1);
  });

  test("zero or a negative maxStaleness asks the store every time", async () => {
    for (const maxStaleness of [0, -5]) {
      const { store, checks } = countingStore();
      await isRevoked({ store, maxStaleness }, { sub: "u1", sid: "s1" });
      await isRevoked({ store, maxStaleness }, { sub: "u1", sid: "s1" });
      expect(checks).toHaveLength(2);
    }
  });

  test("answers are kept per user, session and start, and per store", async () => {
    const first = countingStore();
    const second = countingStore();
    const a = { store: first.store, maxStaleness: 60_000 };
    const b = { store: second.store, maxStaleness: 60_000 };
    await isRevoked(a, { sub: "u1", sid: "s1", auth_time: 1 });
    await isRevoked(a, { sub: "u1", sid: "s1", auth_time: 2 });
    await isRevoked(a, { sub: "u1", sid: "s2", auth_time: 1 });
    await isRevoked(a, { sub: "u2", sid: "s1", auth_time: 1 });
    await isRevoked(b, { sub: "u1", sid: "s1", auth_time: 1 });
    expect(first.checks).toHaveLength(4);
    expect(second.checks).toHaveLength(1);
  });

  test("forgetting a store's answers makes the next check ask it again; other stores keep theirs", async () => {
    const first = countingStore();
    const second = countingStore();
    const a = { store: first.store, maxStaleness: 60_000 };
    const b = { store: second.store, maxStaleness: 60_000 };
    await isRevoked(a, { sub: "u1", sid: "s1" });
    await isRevoked(b, { sub: "u1", sid: "s1" });
    forgetCachedChecks(first.store);
    forgetCachedChecks(countingStore().store);
    await isRevoked(a, { sub: "u1", sid: "s1" });
    await isRevoked(b, { sub: "u1", sid: "s1" });
    expect(first.checks).toHaveLength(2);
    expect(second.checks).toHaveLength(1);
  });

  test("at most 10,000 answers are kept: the oldest goes first, and a refreshed answer counts as new", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: 1_000_000 });
    const { store, checks } = countingStore();
    // One store, two staleness settings: session 0's answer goes stale soon, the others' never.
    const brief = { store, maxStaleness: 1000 };
    const long = { store, maxStaleness: 3_600_000 };
    const check = (n: number) => isRevoked(n === 0 ? brief : long, { sub: "u1", sid: `s${n}` });
    // Session 0 is checked first, then refreshed once stale: it is then the newest.
    await check(0);
    await check(1);
    vi.setSystemTime(1_001_000);
    await check(0);
    for (let n = 2; n < 10_000; n++) await check(n);
    expect(checks).toHaveLength(10_001);
    // The cache is full (sessions 0 to 9,999): one more answer drops the oldest, session 1, whose
    // answer was still fresh.
    await check(10_000);
    checks.length = 0;
    vi.setSystemTime(1_001_500);
    await check(0);
    await check(2);
    await check(9_999);
    expect(checks).toEqual([]);
    await check(1);
    expect(checks).toEqual(["u1/s1/0"]);
  });
});

describe("what a JWT sign-in records", () => {
  function config(store: RevocationStore): AuthConfig {
    return credentialsConfig({ session: { strategy: "jwt", revocation: { store } } });
  }

  test("a sign-in records its session with the client it came from", async () => {
    const store = MemoryRevocationStore();
    await signInAlice(config(store), new Jar());
    const [record, ...more] = await store.listSessions("user-1");
    expect(more).toEqual([]);
    expect(record?.sessionId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(record?.provider).toBe("credentials");
    expect(record?.providerType).toBe("credentials");
    expect(record?.lastSeenAt).toBeInstanceOf(Date);
    expect(record?.createdAt?.valueOf()).toBeLessThanOrEqual(Date.now());
  });

  test("a store that cannot record: the sign-in still works, and one error line says so", async () => {
    const memory = MemoryRevocationStore();
    const failing: RevocationStore = {
      check: memory.check,
      revokeSession: memory.revokeSession,
      revokeUser: memory.revokeUser,
      recordSession: () => Promise.reject(new Error("store down")),
    };
    const cfg = config(failing);
    const response = await signInAlice(cfg, new Jar());
    expect(response.status).toBe(302);
    expect(response.headers.getSetCookie().join("\n")).toMatch(/authjs\.session-token=/);
    const errors = (cfg.logger as ReturnType<typeof recordingLogger>).error.mock.calls.map(
      ([error]) => error as Error,
    );
    expect(errors.map((e) => e.message)).toEqual([
      "The revocation store could not record the session",
    ]);
    expect(errors[0]?.cause).toEqual(new Error("store down"));
  });

  test("a store without a list is not asked to record", async () => {
    const memory = MemoryRevocationStore();
    const { recordSession: _r, listSessions: _l, ...withoutList } = memory;
    const cfg = config(withoutList);
    const response = await signInAlice(cfg, new Jar());
    expect(response.status).toBe(302);
    expect(await memory.listSessions("user-1")).toEqual([]);
    expect(cfg.logger?.error).not.toHaveBeenCalled();
  });

  test("a token whose jwt callback leaves no subject is not recorded", async () => {
    for (const sub of [undefined, ""]) {
      const memory = MemoryRevocationStore();
      const cfg = credentialsConfig({
        session: { strategy: "jwt", revocation: { store: memory } },
        callbacks: { jwt: ({ token }) => ({ ...token, sub }) },
      });
      const response = await signInAlice(cfg, new Jar());
      expect(response.status).toBe(302);
      expect(await memory.listSessions(sub as string)).toEqual([]);
      expect(await memory.listSessions("user-1")).toEqual([]);
      expect(cfg.logger?.error).not.toHaveBeenCalled();
    }
  });
});
