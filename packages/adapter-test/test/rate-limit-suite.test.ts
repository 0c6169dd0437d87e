/**
 * The rate-limit store suite can fail: a small store written for this test passes every case,
 * and the same store with one bug at a time fails the case named for it. Every case catches at
 * least one bug, so none of them passes whatever the store does; the bursts catch each way of
 * counting in two steps, by which a burst gets more tries than a rule allows.
 */
import type { RateLimitCount, RateLimitStore } from "@gatehousejs/core/types";
import { describe, expect, test } from "vitest";
import { suite } from "../src/rate-limit/index.js";
import { caseNames, runCase, tick } from "./support/run-case.js";

type Bug =
  | "counts a peek as a hit"
  | "moves a fixed window's end with every hit"
  | "ignores extend"
  | "never ends a counter"
  | "does nothing on reset"
  | "cuts keys to 255 characters"
  | "reads and writes a counter in two steps"
  | "starts an ended counter again in two steps"
  | "extends a counter in two steps"
  | "gives resetAt in seconds";

/** A rate-limit store in memory, right unless given a bug. */
function toyStore(bug?: Bug): RateLimitStore {
  const counters = new Map<string, RateLimitCount>();
  const keyOf = (key: string) => (bug === "cuts keys to 255 characters" ? key.slice(0, 255) : key);
  const live = (key: string, now: number) => {
    const counter = counters.get(keyOf(key));
    return counter && (bug === "never ends a counter" || counter.resetAt > now)
      ? counter
      : undefined;
  };
  const shown = (counter: RateLimitCount): RateLimitCount =>
    bug === "gives resetAt in seconds"
      ? { count: counter.count, resetAt: Math.floor(counter.resetAt / 1000) }
      : { ...counter };
  return {
    async hit(key, windowMs, options) {
      const now = Date.now();
      const extend = options?.extend === true && bug !== "ignores extend";
      const current = live(key, now);
      const twoSteps =
        bug === "reads and writes a counter in two steps" ||
        (bug === "starts an ended counter again in two steps" && !current && counters.has(key)) ||
        (bug === "extends a counter in two steps" && extend);
      const seen = current ? { ...current } : undefined;
      if (twoSteps) await tick();
      const base = twoSteps ? seen : live(key, now);
      const moves = extend || bug === "moves a fixed window's end with every hit";
      const next = base
        ? { count: base.count + 1, resetAt: moves ? now + windowMs : base.resetAt }
        : { count: 1, resetAt: now + windowMs };
      counters.set(keyOf(key), next);
      return shown(next);
    },
    async peek(key) {
      const counter = live(key, Date.now());
      if (counter && bug === "counts a peek as a hit") counter.count += 1;
      return counter ? shown(counter) : null;
    },
    async reset(key) {
      if (bug !== "does nothing on reset") counters.delete(keyOf(key));
    },
  };
}

const names = caseNames(suite);
const [counting, fixed, extending, ended, reset, opaque] = names;
const [burst, burstAfterEnd, burstExtending, racingPeeks, burstsOnKeys] = names.slice(6);

/** Each bug, and the case that must fail for it. */
const caught: [Bug, string | undefined][] = [
  ["counts a peek as a hit", counting],
  ["moves a fixed window's end with every hit", fixed],
  ["gives resetAt in seconds", fixed],
  ["ignores extend", extending],
  ["never ends a counter", ended],
  ["does nothing on reset", reset],
  ["cuts keys to 255 characters", opaque],
  ["reads and writes a counter in two steps", burst],
  ["starts an ended counter again in two steps", burstAfterEnd],
  ["extends a counter in two steps", burstExtending],
  ["counts a peek as a hit", racingPeeks],
  ["reads and writes a counter in two steps", burstsOnKeys],
];

describe("the rate-limit store suite", () => {
  test("has the 11 cases this test names, in order", () => {
    expect(names).toHaveLength(11);
    expect(new Set(caught.map(([, name]) => name))).toEqual(new Set(names));
  });

  test.each(names)("a store without a bug passes: %s", async (name) => {
    await runCase(suite, toyStore(), name);
  });

  test.each(caught)("a store that %s fails: %s", async (bug, name) => {
    await expect(runCase(suite, toyStore(bug), name!)).rejects.toThrow();
  });
});
