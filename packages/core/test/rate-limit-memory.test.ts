/** The memory rate-limit store: windows, and its bound on the number of counters. */
import { describe, expect, test } from "vitest";
import { limitKey, loggableKey, plainKey } from "../src/lib/features/rate-limit/keys.js";
import { MemoryRateLimitStore, syncStore } from "../src/lib/features/rate-limit/memory.js";
import { SPILL_COUNTERS, StreakTable } from "../src/lib/features/rate-limit/streaks.js";

describe("MemoryRateLimitStore", () => {
  test("a fixed window keeps its end; extend moves it; an ended counter starts again at 1", async () => {
    let now = 1_000_000;
    const store = MemoryRateLimitStore({ now: () => now });
    expect(await store.hit("a", 1000)).toEqual({ count: 1, resetAt: now + 1000 });
    now += 500;
    expect(await store.hit("a", 1000)).toEqual({ count: 2, resetAt: now + 500 });
    expect(await store.hit("b", 1000, { extend: true })).toEqual({ count: 1, resetAt: now + 1000 });
    now += 900;
    expect(await store.hit("b", 1000, { extend: true })).toEqual({ count: 2, resetAt: now + 1000 });
    expect(await store.peek("a")).toBeNull();
    expect(await store.hit("a", 1000)).toEqual({ count: 1, resetAt: now + 1000 });
    await store.reset("b");
    expect(await store.peek("b")).toBeNull();
  });

  test("full, it forgets the counters hit least recently, not the busy ones", async () => {
    const store = MemoryRateLimitStore({ maxEntries: 3 });
    await store.hit("busy", 60_000);
    await store.hit("quiet-1", 60_000);
    await store.hit("quiet-2", 60_000);
    await store.hit("busy", 60_000);
    await store.hit("new", 60_000);
    expect(await store.peek("quiet-1")).toBeNull();
    expect((await store.peek("busy"))?.count).toBe(2);
    expect(await store.peek("quiet-2")).not.toBeNull();
    expect(await store.peek("new")).not.toBeNull();
  });

  test("an attacker's busy counter survives a flood of distinct keys meant to push it out", async () => {
    const store = MemoryRateLimitStore({ maxEntries: 1000 });
    for (let i = 0; i < 20_000; i++) {
      await store.hit(`flood-${i}`, 60_000);
      if (i % 100 === 0) await store.hit("attacker", 60_000);
    }
    expect((await store.peek("attacker"))?.count).toBe(200);
  });

  test("a flood of one kind of key pushes out its own kind first, not another limit's counters", async () => {
    const store = MemoryRateLimitStore({ maxEntries: 1000 });
    // Counted once and never hit again: only their partition keeps them.
    for (let i = 0; i < 100; i++) await store.hit(`credentials.failures:streak-${i}`, 60_000);
    for (let i = 0; i < 20_000; i++) await store.hit(`credentials.perClient:client-${i}`, 60_000);
    for (let i = 0; i < 100; i++) {
      expect(await store.peek(`credentials.failures:streak-${i}`)).not.toBeNull();
    }
  });

  test("a flood of distinct keys stays within the bound", async () => {
    const store = MemoryRateLimitStore({ maxEntries: 1000 });
    for (let i = 0; i < 20_000; i++) await store.hit(`k${i}`, 60_000);
    let kept = 0;
    for (let i = 0; i < 20_000; i++) if (await store.peek(`k${i}`)) kept++;
    expect(kept).toBeLessThanOrEqual(1000);
    expect(await store.peek("k19999")).not.toBeNull();
  });
});

describe("failure streaks: never evicted by a flood, bounded all the same", () => {
  test("a flood of distinct keys never resets a streak that is still running", async () => {
    const store = MemoryRateLimitStore({ maxEntries: 100, maxStreaks: 100 });
    for (let i = 0; i < 51; i++)
      await store.hit("credentials.failures:target", 3_600_000, { extend: true });
    // Fresh streaks and fresh fixed counters, far past both bounds; the target is never hit again.
    for (let i = 0; i < 5_000; i++) {
      await store.hit(`credentials.failures:flood-${i}`, 3_600_000, { extend: true });
      await store.hit(`credentials.perClient:flood-${i}`, 60_000);
    }
    expect((await store.peek("credentials.failures:target"))?.count).toBe(51);
  });

  test("full, a new streak counts on a spill counter that its key's next check reads", async () => {
    const store = MemoryRateLimitStore({ maxStreaks: 10 });
    for (let i = 0; i < 10; i++) await store.hit(`s:held-${i}`, 60_000, { extend: true });
    for (let i = 0; i < 7; i++) await store.hit("s:newcomer", 60_000, { extend: true });
    // Never its own streak (no room), yet its failures are not forgotten.
    expect((await store.peek("s:newcomer"))?.count).toBeGreaterThanOrEqual(7);
    for (let i = 0; i < 10; i++) expect((await store.peek(`s:held-${i}`))?.count).toBe(1);
    // A success forgets a key's own streak, never a spill counter that others share.
    await store.reset("s:newcomer");
    expect((await store.peek("s:newcomer"))?.count).toBeGreaterThanOrEqual(7);
  });

  test("ended streaks make room again; the table never holds more than its bound", () => {
    const budget = { held: 0, max: 50 };
    const table = new StreakTable(budget);
    let at = 0;
    for (let i = 0; i < 20_000; i++) table.start(`k${i}`, 1_000, at);
    expect(table.size).toBe(50);
    expect(table.spilled).toBeLessThanOrEqual(SPILL_COUNTERS);
    at += 1_000; // every streak and spill counter has ended
    expect(table.start("late", 1_000, at).count).toBe(1);
    expect(table.size).toBe(1);
    expect(budget.held).toBe(1);
  });
});

describe("the limiter's synchronous fast path", () => {
  test("the memory store's synchronous face shares its counters; other stores have none", async () => {
    const store = MemoryRateLimitStore();
    const sync = syncStore(store);
    expect(sync).toBeDefined();
    expect(sync!.hit("limit", "limit:k", 60_000).count).toBe(1);
    expect((await store.hit("limit:k", 60_000)).count).toBe(2);
    expect(sync!.peek("limit", "limit:k")?.count).toBe(2);
    sync!.reset("limit", "limit:k");
    expect(await store.peek("limit:k")).toBeNull();
    const other = { ...store };
    expect(syncStore(other)).toBeUndefined();
  });
});

describe("counter keys", () => {
  test("plain keys (this process's memory) hold the parts; a long part makes the key hashed", () => {
    expect(plainKey(["alice", "2001:db8::/64"])).toBe("alice\u00002001:db8::/64");
    expect(plainKey(["203.0.113.9"])).toBe("203.0.113.9");
    expect(plainKey(["a".repeat(65), "203.0.113.9"])).toBeNull();
  });

  test("hashed keys depend on the secret; the loggable name shows the limit and a prefix of the hash", () => {
    const one = limitKey("s".repeat(32), "email.perAddress", ["alice@example.com"]);
    const two = limitKey("t".repeat(32), "email.perAddress", ["alice@example.com"]);
    expect(one).toMatch(/^email\.perAddress:[\w-]{22}$/);
    expect(one).not.toBe(two);
    const named = loggableKey("s".repeat(32), "email.perAddress", ["alice@example.com"]);
    expect(named).toBe(
      `email.perAddress ${String(one).slice("email.perAddress:".length, "email.perAddress:".length + 8)}`,
    );
    expect(named).not.toContain("alice");
  });
});
