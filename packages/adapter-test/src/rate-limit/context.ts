import type { RateLimitCount, RateLimitStore } from "@gatehousejs/core/types";
import { expect } from "vitest";
import type { StoreCase, StoreGroup } from "../store-suite.js";

/** A method of the rate-limit store contract. */
export type RateLimitStoreMethod = keyof RateLimitStore;

// A record rather than an array, so that a method added to the contract fails to compile here.
const methodSet: Record<RateLimitStoreMethod, true> = { hit: true, peek: true, reset: true };

/** Every method of the rate-limit store contract. */
export const rateLimitMethods = Object.keys(methodSet) as RateLimitStoreMethod[];

export const MINUTE = 60_000;

/** What every rate-limit test receives. */
export interface RateLimitContext {
  /** The store under test; every method is present (a missing one rejects with advice). */
  store: RateLimitStore;
  /** A counter key no other test uses, starting with `tag`. */
  key(tag: string): string;
}

export type RateLimitCase = StoreCase<RateLimitContext> & {
  uses: readonly RateLimitStoreMethod[];
};
export type RateLimitGroup = StoreGroup<RateLimitContext> & {
  cases: readonly RateLimitCase[];
};

export function rateLimitContext(store: RateLimitStore): RateLimitContext {
  return { store, key: (tag) => `gatehouse-test:${tag}:${crypto.randomUUID()}` };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Asserts that simultaneous hits on one counter got the counts 1 to `n`, each exactly once: a
 * count given twice is one try more than the rule allows. Fixed-window hits must also share one
 * window (one `resetAt`).
 */
export function expectEachCountOnce(
  results: readonly RateLimitCount[],
  n: number,
  where: string,
  { oneWindow = true } = {},
) {
  const counts = results.map((r) => r.count).sort((a, b) => a - b);
  const expected = Array.from({ length: n }, (_, i) => i + 1);
  const repeated = counts.filter((c, i) => i > 0 && counts[i - 1] === c);
  expect(
    counts,
    `${where}: every count from 1 to ${n} exactly once${
      repeated.length
        ? ` (given more than once: ${[...new Set(repeated)].slice(0, 10).join(", ")})`
        : ""
    }`,
  ).toEqual(expected);
  if (oneWindow) {
    const ends = new Set(results.map((r) => r.resetAt)).size;
    expect(ends, `${where}: one window, so one resetAt`).toBe(1);
  }
}
