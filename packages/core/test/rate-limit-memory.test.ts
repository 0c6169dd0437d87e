/** The memory rate-limit store: windows, and its bound on the number of counters. */
import { describe, expect, test } from "vitest";
import { MemoryRateLimitStore, syncStore } from "../src/lib/rate-limit/memory.js";

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

  test("a flood of distinct keys stays within the bound", async () => {
    const store = MemoryRateLimitStore({ maxEntries: 1000 });
    for (let i = 0; i < 20_000; i++) await store.hit(`k${i}`, 60_000);
    let kept = 0;
    for (let i = 0; i < 20_000; i++) if (await store.peek(`k${i}`)) kept++;
    expect(kept).toBeLessThanOrEqual(1000);
    expect(await store.peek("k19999")).not.toBeNull();
  });
});

describe("the limiter's synchronous fast path", () => {
  test("the memory store's synchronous face shares its counters; other stores have none", async () => {
    const store = MemoryRateLimitStore();
    const sync = syncStore(store);
    expect(sync).toBeDefined();
    expect(sync!.hit("k", 60_000).count).toBe(1);
    expect((await store.hit("k", 60_000)).count).toBe(2);
    expect(sync!.peek("k")?.count).toBe(2);
    sync!.reset("k");
    expect(await store.peek("k")).toBeNull();
    const other = { ...store };
    expect(syncStore(other)).toBeUndefined();
  });
});
