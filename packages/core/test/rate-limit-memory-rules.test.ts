/**
 * The memory rate-limit store's rules at their edges: the instant a window or a streak ends, what
 * `extend` moves, the room that ended and reset counters give back, how many counters it holds
 * before it evicts any, eviction across many small partitions and address tables, busy counters
 * under a full store, keys split at a NUL, and the failure streaks' budget and spill counters.
 */
import { describe, expect, test } from "vitest";
import { parseIp } from "../src/lib/client-address.js";
import { MemoryRateLimitStore, syncStore } from "../src/lib/features/rate-limit/memory.js";

function clocked(options: { maxEntries?: number; maxStreaks?: number } = {}) {
  const clock = { now: 1_000_000 };
  const store = MemoryRateLimitStore({ ...options, now: () => clock.now });
  return { store, clock, sync: syncStore(store)! };
}

async function liveCount(
  store: ReturnType<typeof MemoryRateLimitStore>,
  keys: string[],
): Promise<number> {
  let n = 0;
  for (const key of keys) if (await store.peek(key)) n++;
  return n;
}

const keys = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe("windows", () => {
  test("a counter ends at exactly its reset time: the next hit starts again at 1", async () => {
    const { store, clock } = clocked();
    await store.hit("w:k", 1000);
    clock.now += 1000;
    expect(await store.hit("w:k", 1000)).toEqual({ count: 1, resetAt: clock.now + 1000 });
  });

  test("a hit with extend moves the end of a fixed-window counter", async () => {
    const { store, clock } = clocked();
    await store.hit("w:k", 1000);
    clock.now += 500;
    expect(await store.hit("w:k", 1000, { extend: true })).toEqual({
      count: 2,
      resetAt: clock.now + 1000,
    });
  });

  test("resetting a key nobody counted does nothing", async () => {
    const { store, sync } = clocked();
    await expect(store.reset("never:seen")).resolves.toBeUndefined();
    expect(sync.peekAddress("never", parseIp("192.0.2.1")!)).toBeNull();
  });
});

describe("the bound on counters", () => {
  test("a store holds exactly maxEntries counters before it evicts any", async () => {
    const { store } = clocked({ maxEntries: 32 });
    const all = keys("b:", 32);
    for (const key of all) await store.hit(key, 60_000);
    expect(await liveCount(store, all)).toBe(32);
  });

  test("ended counters give their room back", async () => {
    const { store, clock } = clocked({ maxEntries: 4 });
    await store.hit("e:a", 1000);
    await store.hit("e:b", 1000);
    clock.now += 1000;
    expect(await store.peek("e:a")).toBeNull();
    expect(await store.peek("e:b")).toBeNull();
    const fresh = keys("e:new-", 4);
    for (const key of fresh) await store.hit(key, 60_000);
    expect(await liveCount(store, fresh)).toBe(4);
  });

  test("reset counters give their room back", async () => {
    const { store } = clocked({ maxEntries: 4 });
    await store.hit("r:a", 60_000);
    await store.hit("r:b", 60_000);
    await store.reset("r:a");
    await store.reset("r:b");
    const fresh = keys("r:new-", 4);
    for (const key of fresh) await store.hit(key, 60_000);
    expect(await liveCount(store, fresh)).toBe(4);
  });

  test("full, it evicts from as many small partitions as it takes to stay within the bound", async () => {
    const { store } = clocked({ maxEntries: 64 });
    const all = Array.from({ length: 65 }, (_, i) => `p${i}:k`);
    for (const key of all) await store.hit(key, 60_000);
    // At the bound a sixteenth (4) goes at once, one counter from each of four partitions.
    expect(await liveCount(store, all)).toBe(61);
    expect(await store.peek("p64:k")).not.toBeNull();
  });

  test("full, it evicts from as many small address tables as it takes to stay within the bound", () => {
    const { sync } = clocked({ maxEntries: 64 });
    const ip = parseIp("192.0.2.1")!;
    for (let i = 0; i < 65; i++) sync.hitAddress(`t${i}`, ip, 60_000);
    let live = 0;
    for (let i = 0; i < 65; i++) if (sync.peekAddress(`t${i}`, ip)) live++;
    expect(live).toBe(61);
    expect(sync.peekAddress("t64", ip)).not.toBeNull();
  });

  test("evicting address counters stops once there is room: other limits' counters stay", async () => {
    const { sync, store } = clocked({ maxEntries: 32 });
    for (let i = 0; i < 12; i++) sync.hit("other", `other:${i}`, 60_000);
    for (let i = 0; i < 21; i++) sync.hitAddress("clients", parseIp(`192.0.2.${i + 1}`)!, 60_000);
    for (let i = 0; i < 12; i++) expect(await store.peek(`other:${i}`)).not.toBeNull();
  });

  test("when every counter is busy, a full store still stays within its bound", async () => {
    const { store } = clocked({ maxEntries: 16 });
    const all = keys("busy:", 64);
    for (const key of all) {
      await store.hit(key, 60_000);
      await store.hit(key, 60_000);
    }
    expect(await liveCount(store, all)).toBeLessThanOrEqual(16);
  });

  test("when every counter is busy, one new counter still finds room at once", async () => {
    const { store } = clocked({ maxEntries: 16 });
    const all = keys("busy:", 16);
    for (const key of all) {
      await store.hit(key, 60_000);
      await store.hit(key, 60_000);
    }
    await store.hit("busy:new", 60_000);
    expect(await liveCount(store, [...all, "busy:new"])).toBe(16);
  });

  test("ended counters are swept from the front of their partition as new ones come, so they push out no live counter elsewhere", async () => {
    const { store, clock } = clocked({ maxEntries: 32 });
    const ended = keys("a:ended-", 10);
    const liveA = keys("a:live-", 2);
    const liveB = keys("b:", 19);
    for (const key of ended) await store.hit(key, 1000);
    for (const key of liveA) await store.hit(key, 60_000);
    for (const key of liveB) await store.hit(key, 60_000);
    // The ten end at this very instant; two new counters in their partition follow.
    clock.now += 1000;
    await store.hit("a:new-1", 60_000);
    await store.hit("a:new-2", 60_000);
    expect(await liveCount(store, liveB)).toBe(19);
    expect(await liveCount(store, [...liveA, "a:new-1", "a:new-2"])).toBe(4);
  });

  test("an ended counter goes before a live one, even one hit since and ended at this very instant", async () => {
    const { store, clock } = clocked({ maxEntries: 4 });
    await store.hit("x:ended", 1000);
    await store.hit("x:ended", 1000);
    clock.now += 500;
    for (const key of ["x:a", "x:b", "x:c"]) await store.hit(key, 60_000);
    clock.now += 500;
    await store.hit("x:d", 60_000);
    expect(await liveCount(store, ["x:a", "x:b", "x:c", "x:d"])).toBe(4);
  });

  test("keys split at a NUL too: a flood of one kind pushes out its own kind first", async () => {
    const { store } = clocked({ maxEntries: 200 });
    const kept = keys("kept\u0000", 50);
    for (const key of kept) await store.hit(key, 60_000);
    for (let i = 0; i < 2_000; i++) await store.hit(`flood\u0000${i}`, 60_000);
    expect(await liveCount(store, kept)).toBe(50);
  });
});

describe("failure streaks", () => {
  test("a streak ends at exactly its reset time", async () => {
    const { store, clock } = clocked();
    await store.hit("s:k", 1000, { extend: true });
    clock.now += 1000;
    expect(await store.peek("s:k")).toBeNull();
  });

  test("a hit without extend counts on a running streak but does not move its end", async () => {
    const { store, clock } = clocked();
    const start = clock.now;
    await store.hit("s:k", 1000, { extend: true });
    clock.now += 500;
    expect(await store.hit("s:k", 1000)).toEqual({ count: 2, resetAt: start + 1000 });
  });

  test("ended and reset streaks give their room in the budget back", async () => {
    const { store, clock } = clocked({ maxStreaks: 1 });
    await store.hit("s:a", 1000, { extend: true });
    clock.now += 1000;
    expect(await store.peek("s:a")).toBeNull();
    // The room is free again: s:b gets a streak of its own, which a success forgets entirely.
    await store.hit("s:b", 60_000, { extend: true });
    await store.reset("s:b");
    expect(await store.peek("s:b")).toBeNull();
    await store.hit("s:c", 60_000, { extend: true });
    await store.reset("s:c");
    expect(await store.peek("s:c")).toBeNull();
  });

  test("a spill counter ends at exactly its reset time", async () => {
    const { store, clock } = clocked({ maxStreaks: 1 });
    await store.hit("s:holder", 3_600_000, { extend: true });
    await store.hit("s:k", 1000, { extend: true });
    await store.hit("s:k", 1000, { extend: true });
    clock.now += 1000;
    expect(await store.peek("s:k")).toBeNull();
    expect((await store.hit("s:k", 1000, { extend: true })).count).toBe(1);
  });

  test("a key with its own streak is held back by its spill counter while that one counts more", async () => {
    const { store, clock } = clocked({ maxStreaks: 1 });
    await store.hit("s:holder", 3_600_000, { extend: true });
    for (let i = 0; i < 7; i++) await store.hit("s:k", 60_000, { extend: true });
    await store.reset("s:holder");
    clock.now += 1000;
    expect((await store.hit("s:k", 60_000, { extend: true })).count).toBe(1);
    expect((await store.peek("s:k"))?.count).toBe(7);
  });

  test("on a tie the key's own streak answers, with its own end", async () => {
    const { store, clock } = clocked({ maxStreaks: 1 });
    await store.hit("s:holder", 3_600_000, { extend: true });
    await store.hit("s:k", 60_000, { extend: true });
    await store.hit("s:k", 60_000, { extend: true });
    await store.reset("s:holder");
    clock.now += 1000;
    await store.hit("s:k", 60_000, { extend: true });
    clock.now += 1000;
    await store.hit("s:k", 60_000, { extend: true });
    expect(await store.peek("s:k")).toEqual({ count: 2, resetAt: clock.now + 60_000 });
  });
});
