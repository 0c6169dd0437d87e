import type { RateLimitStore } from "@gatehousejs/core/types";
import {
  runStoreSuite,
  type StoreSuite,
  type StoreTestOptions,
  strictStore,
  testNames,
} from "../store-suite.js";
import { bursts, counting } from "./cases.js";
import { type RateLimitContext, rateLimitContext, rateLimitMethods } from "./context.js";

export type { RateLimitStoreMethod } from "./context.js";

/** Options of {@link runRateLimitStoreTests}. */
export type RateLimitStoreTestOptions = StoreTestOptions<RateLimitStore>;

/** The suite, for the package's own tests; not exported from the package. */
export const suite: StoreSuite<RateLimitStore, RateLimitContext> = {
  fn: "runRateLimitStoreTests",
  contract: "rate-limit store contract",
  methods: rateLimitMethods,
  optional: new Set(),
  groups: [counting, bursts],
  context: (store) => rateLimitContext(strictStore(store, rateLimitMethods)),
};

/** Every test name of the rate-limit store suite, as accepted by the `skip` option. */
export const rateLimitStoreTestNames: readonly string[] = testNames(suite.groups);

/**
 * Registers vitest `describe`/`test` blocks that check `options.store` against the
 * `RateLimitStore` contract (`rateLimit.store`): `hit` counts 1, 2, 3 per key, in a fixed window
 * whose end the first hit sets (or, with `extend`, one that each hit moves); an ended or reset
 * counter starts again at 1 and `peek` shows it as `null`; `peek` never counts; keys are opaque;
 * and counting is atomic: simultaneous hits (1,000 on one key, bursts on an ended counter, with
 * `extend`, racing peeks, on several keys) get every count exactly once, so a burst never gets
 * more tries than a rule allows. Every test uses fresh keys, so the suite may run against a store
 * that already holds counters. Call it at the top level of a test file.
 *
 * @example
 * ```ts
 * import { runRateLimitStoreTests } from "@gatehousejs/adapter-test";
 * import { MemoryRateLimitStore } from "@gatehousejs/core";
 *
 * runRateLimitStoreTests({ name: "memory", store: MemoryRateLimitStore() });
 * ```
 */
export function runRateLimitStoreTests(options: RateLimitStoreTestOptions): void {
  runStoreSuite(suite, options);
}
