/**
 * The rate-limit store contract as test cases, shared by every store (memory, Redis, PostgreSQL,
 * PGlite): counting, fixed and extended windows, the end of a window, `peek`, `reset`, opaque
 * keys and atomic counting under 1,000 simultaneous hits. Call inside a store's `describe`
 * block; each case uses keys of its own, so the cases may share one store.
 */
import { randomUUID } from "node:crypto";
import type { RateLimitStore } from "@gatehousejs/core/types";
import { expect, test } from "vitest";

const MINUTE = 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const freshKey = (tag: string) => `${tag}:${randomUUID()}`;

/** Registers the contract's cases for the store that `store()` returns once the block is open. */
export function rateLimitStoreCases(store: () => RateLimitStore): void {
  test("hits on one key count 1, 2, 3; another key counts on its own; peek adds nothing", async () => {
    const s = store();
    const [key, other] = [freshKey("count"), freshKey("count")];
    expect(await s.peek(key)).toBeNull();
    expect((await s.hit(key, MINUTE)).count).toBe(1);
    expect((await s.hit(key, MINUTE)).count).toBe(2);
    const third = await s.hit(key, MINUTE);
    expect(third.count).toBe(3);
    expect((await s.hit(other, MINUTE)).count).toBe(1);
    expect(await s.peek(key)).toEqual(third);
    expect(await s.peek(key)).toEqual(third);
    expect((await s.hit(key, MINUTE)).count).toBe(4);
  });

  test("a fixed window keeps the end the first hit set; the end is about windowMs ahead", async () => {
    const s = store();
    const key = freshKey("fixed");
    const before = Date.now();
    const first = await s.hit(key, MINUTE);
    await sleep(20);
    const second = await s.hit(key, MINUTE);
    const third = await s.hit(key, 5 * MINUTE); // a later hit's window does not move the end
    expect(second).toEqual({ count: 2, resetAt: first.resetAt });
    expect(third).toEqual({ count: 3, resetAt: first.resetAt });
    // The store's clock may be another host's: the end is a minute ahead, give or take 10 s.
    expect(first.resetAt).toBeGreaterThan(before + MINUTE - 10_000);
    expect(first.resetAt).toBeLessThan(before + MINUTE + 10_000);
  });

  test("extend moves the end to windowMs after each hit and keeps counting", async () => {
    const s = store();
    const key = freshKey("extend");
    const first = await s.hit(key, MINUTE, { extend: true });
    await sleep(20);
    const second = await s.hit(key, MINUTE, { extend: true });
    expect(second.count).toBe(2);
    expect(second.resetAt).toBeGreaterThan(first.resetAt);
    // A fixed hit on the same counter counts without moving the end.
    const third = await s.hit(key, MINUTE);
    expect(third).toEqual({ count: 3, resetAt: second.resetAt });
    expect(await s.peek(key)).toEqual(third);
  });

  test("an ended counter is gone for peek and starts again at 1 on the next hit", async () => {
    const s = store();
    const key = freshKey("ended");
    await s.hit(key, 50);
    await s.hit(key, 50);
    await sleep(250);
    expect(await s.peek(key)).toBeNull();
    const again = await s.hit(key, MINUTE);
    expect(again.count).toBe(1);
    expect(again.resetAt).toBeGreaterThan(Date.now() + MINUTE / 2);
    // An extended counter ends too once windowMs passes without a hit.
    const streak = freshKey("ended-extend");
    await s.hit(streak, 50, { extend: true });
    await s.hit(streak, 50, { extend: true });
    await sleep(250);
    expect(await s.peek(streak)).toBeNull();
    expect((await s.hit(streak, 50, { extend: true })).count).toBe(1);
  });

  test("reset ends the counter: peek is null and the next hit counts 1; other keys stay", async () => {
    const s = store();
    const [key, other] = [freshKey("reset"), freshKey("reset")];
    await s.hit(key, MINUTE);
    await s.hit(key, MINUTE);
    await s.hit(other, MINUTE);
    await s.reset(key);
    expect(await s.peek(key)).toBeNull();
    expect((await s.hit(key, MINUTE)).count).toBe(1);
    expect((await s.peek(other))?.count).toBe(1);
    await s.reset(freshKey("never-hit")); // resetting an unknown key is fine
  });

  test("keys are opaque: separators, escapes, unicode and long keys never collide", async () => {
    const s = store();
    const base = randomUUID();
    const keys = [
      `${base}:a:b`,
      `${base}:a%3Ab`,
      `${base} a b`,
      `${base}:{tag}`,
      `${base}:ключ`,
      `${base}:${"x".repeat(500)}`,
      `${base}:${"x".repeat(499)}`,
      `${base}:'; DROP TABLE rate_limits; --`,
    ];
    for (const [i, key] of keys.entries()) {
      for (let n = 0; n <= i; n++) await s.hit(key, MINUTE);
    }
    for (const [i, key] of keys.entries()) expect((await s.peek(key))?.count).toBe(i + 1);
  });

  test("1,000 simultaneous hits on one key get the counts 1 to 1,000, each exactly once", async () => {
    const s = store();
    const key = freshKey("burst");
    const results = await Promise.all(Array.from({ length: 1000 }, () => s.hit(key, MINUTE)));
    const counts = results.map((r) => r.count).sort((a, b) => a - b);
    expect(counts).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    // One window: every hit reports the end the first one set.
    expect(new Set(results.map((r) => r.resetAt)).size).toBe(1);
    expect((await s.peek(key))?.count).toBe(1000);
  }, 60_000);
}
