import { expect } from "vitest";
import { expectEachCountOnce, MINUTE, type RateLimitGroup, sleep } from "./context.js";

export const counting: RateLimitGroup = {
  title: "hit, peek and reset",
  cases: [
    {
      name: "hits on one key count 1, 2, 3; another key counts on its own; peek adds nothing",
      uses: ["hit", "peek"],
      async run(ctx) {
        const s = ctx.store;
        const [key, other] = [ctx.key("count"), ctx.key("count")];
        expect(await s.peek(key), "peek(a key never hit)").toBeNull();
        expect((await s.hit(key, MINUTE)).count, "the first hit").toBe(1);
        expect((await s.hit(key, MINUTE)).count, "the second hit").toBe(2);
        const third = await s.hit(key, MINUTE);
        expect(third.count, "the third hit").toBe(3);
        expect((await s.hit(other, MINUTE)).count, "the first hit on another key").toBe(1);
        expect(await s.peek(key), "peek after three hits").toEqual(third);
        expect(await s.peek(key), "peek again").toEqual(third);
        expect((await s.hit(key, MINUTE)).count, "the hit after two peeks").toBe(4);
      },
    },
    {
      name: "a fixed window keeps the end the first hit set; the end is about windowMs ahead",
      uses: ["hit"],
      async run(ctx) {
        const s = ctx.store;
        const key = ctx.key("fixed");
        const before = Date.now();
        const first = await s.hit(key, MINUTE);
        await sleep(20);
        const second = await s.hit(key, MINUTE);
        const third = await s.hit(key, 5 * MINUTE); // a later hit's window does not move the end
        expect(second, "the second hit, 20 ms later").toEqual({ count: 2, resetAt: first.resetAt });
        expect(third, "a third hit with a longer window").toEqual({
          count: 3,
          resetAt: first.resetAt,
        });
        // The store's clock may be another host's: the end is a minute ahead, give or take 10 s.
        expect(first.resetAt, "resetAt, in ms since the epoch").toBeGreaterThan(
          before + MINUTE - 10_000,
        );
        expect(first.resetAt, "resetAt, in ms since the epoch").toBeLessThan(
          before + MINUTE + 10_000,
        );
      },
    },
    {
      name: "extend moves the end to windowMs after each hit and keeps counting",
      uses: ["hit", "peek"],
      async run(ctx) {
        const s = ctx.store;
        const key = ctx.key("extend");
        const first = await s.hit(key, MINUTE, { extend: true });
        await sleep(20);
        const second = await s.hit(key, MINUTE, { extend: true });
        expect(second.count, "the second extending hit").toBe(2);
        expect(second.resetAt, "the end after the second extending hit").toBeGreaterThan(
          first.resetAt,
        );
        // A fixed hit on the same counter counts without moving the end.
        const third = await s.hit(key, MINUTE);
        expect(third, "a fixed hit on an extended counter").toEqual({
          count: 3,
          resetAt: second.resetAt,
        });
        expect(await s.peek(key), "peek").toEqual(third);
      },
    },
    {
      name: "an ended counter is gone for peek and starts again at 1 on the next hit",
      uses: ["hit", "peek"],
      async run(ctx) {
        const s = ctx.store;
        const key = ctx.key("ended");
        await s.hit(key, 50);
        await s.hit(key, 50);
        await sleep(250);
        expect(await s.peek(key), "peek after the 50 ms window").toBeNull();
        const again = await s.hit(key, MINUTE);
        expect(again.count, "the first hit after the window").toBe(1);
        expect(again.resetAt, "the new window's end").toBeGreaterThan(Date.now() + MINUTE / 2);
        // An extended counter ends too once windowMs passes without a hit.
        const streak = ctx.key("ended-extend");
        await s.hit(streak, 50, { extend: true });
        await s.hit(streak, 50, { extend: true });
        await sleep(250);
        expect(await s.peek(streak), "peek after 50 ms without an extending hit").toBeNull();
        expect((await s.hit(streak, 50, { extend: true })).count, "the next extending hit").toBe(1);
      },
    },
    {
      name: "reset ends the counter: peek is null and the next hit counts 1; other keys stay",
      uses: ["hit", "peek", "reset"],
      async run(ctx) {
        const s = ctx.store;
        const [key, other] = [ctx.key("reset"), ctx.key("reset")];
        await s.hit(key, MINUTE);
        await s.hit(key, MINUTE);
        await s.hit(other, MINUTE);
        await s.reset(key);
        expect(await s.peek(key), "peek after reset").toBeNull();
        expect((await s.hit(key, MINUTE)).count, "the first hit after reset").toBe(1);
        expect((await s.peek(other))?.count, "another key after reset").toBe(1);
        await s.reset(ctx.key("never-hit")); // resetting an unknown key is fine
      },
    },
    {
      name: "keys are opaque: separators, escapes, unicode and long keys never collide",
      uses: ["hit", "peek"],
      async run(ctx) {
        const s = ctx.store;
        const base = ctx.key("opaque");
        const keys = [
          `${base}:a:b`,
          `${base}:a%3Ab`,
          `${base} a b`,
          `${base}:{tag}`,
          `${base}:ключ`,
          `${base}:*`,
          `${base}:${"x".repeat(500)}`,
          `${base}:${"x".repeat(499)}`,
          `${base}:'; DROP TABLE rate_limits; --`,
        ];
        for (const [i, key] of keys.entries()) {
          for (let n = 0; n <= i; n++) await s.hit(key, MINUTE);
        }
        for (const [i, key] of keys.entries()) {
          expect((await s.peek(key))?.count, `peek(${JSON.stringify(key.slice(0, 80))})`).toBe(
            i + 1,
          );
        }
      },
    },
  ],
};

export const bursts: RateLimitGroup = {
  title: "atomic counting under concurrency",
  cases: [
    {
      name: "1,000 simultaneous hits on one key get the counts 1 to 1,000, each once: a limit of 10 lets exactly 10 through",
      uses: ["hit", "peek"],
      timeout: 60_000,
      async run(ctx) {
        const key = ctx.key("burst");
        const results = await Promise.all(
          Array.from({ length: 1000 }, () => ctx.store.hit(key, MINUTE)),
        );
        // Gatehouse counts before it checks: a hit is let through when its count is within the rule.
        const through = results.filter((r) => r.count <= 10).length;
        expect(through, "hits of the burst whose count is within a limit of 10").toBe(10);
        expectEachCountOnce(results, 1000, "1,000 simultaneous hits");
        expect((await ctx.store.peek(key))?.count, "peek after the burst").toBe(1000);
      },
    },
    {
      name: "a burst right after a window ended starts one new window: the counts 1 to 200, each once",
      uses: ["hit"],
      timeout: 60_000,
      async run(ctx) {
        const key = ctx.key("burst-ended");
        const old = await ctx.store.hit(key, 50);
        await ctx.store.hit(key, 50);
        await sleep(250);
        const results = await Promise.all(
          Array.from({ length: 200 }, () => ctx.store.hit(key, MINUTE)),
        );
        expectEachCountOnce(results, 200, "200 simultaneous hits on an ended counter");
        expect(results[0]!.resetAt, "the new window's end").toBeGreaterThan(old.resetAt);
      },
    },
    {
      name: "200 simultaneous extending hits get the counts 1 to 200, each once; the last one's end stays",
      uses: ["hit", "peek"],
      timeout: 60_000,
      async run(ctx) {
        const key = ctx.key("burst-extend");
        const results = await Promise.all(
          Array.from({ length: 200 }, () => ctx.store.hit(key, MINUTE, { extend: true })),
        );
        expectEachCountOnce(results, 200, "200 simultaneous extending hits", { oneWindow: false });
        const last = results.find((r) => r.count === 200);
        expect(await ctx.store.peek(key), "peek: the counter the 200th hit left").toEqual(last);
      },
    },
    {
      name: "peeks racing hits never count: 100 hits and 100 peeks leave the count at 100",
      uses: ["hit", "peek"],
      timeout: 60_000,
      async run(ctx) {
        const key = ctx.key("burst-peek");
        const [hits, peeks] = await Promise.all([
          Promise.all(Array.from({ length: 100 }, () => ctx.store.hit(key, MINUTE))),
          Promise.all(Array.from({ length: 100 }, () => ctx.store.peek(key))),
        ]);
        expectEachCountOnce(hits, 100, "100 hits racing 100 peeks");
        for (const peeked of peeks) {
          if (peeked === null) continue;
          expect(peeked.count, "a peek during the burst").toBeGreaterThanOrEqual(1);
          expect(peeked.count, "a peek during the burst").toBeLessThanOrEqual(100);
        }
        expect((await ctx.store.peek(key))?.count, "peek after the burst").toBe(100);
      },
    },
    {
      name: "bursts on 10 keys at once count each key on its own",
      uses: ["hit"],
      timeout: 60_000,
      async run(ctx) {
        const keys = Array.from({ length: 10 }, () => ctx.key("burst-keys"));
        const results = await Promise.all(
          keys.flatMap((key) => Array.from({ length: 50 }, () => ctx.store.hit(key, MINUTE))),
        );
        for (const [i, key] of keys.entries()) {
          const own = results.slice(i * 50, (i + 1) * 50);
          expectEachCountOnce(own, 50, `50 simultaneous hits on ${key}, beside 9 other keys`);
        }
      },
    },
  ],
};
