import type { SecurityEventStore } from "@gatehousejs/core/types";
import {
  runStoreSuite,
  type StoreSuite,
  type StoreTestOptions,
  strictStore,
  testNames,
} from "../store-suite.js";
import { concurrency, pruning, recording } from "./cases.js";
import {
  type SecurityEventContext,
  securityEventContext,
  securityEventMethods,
} from "./context.js";

export type { SecurityEventStoreMethod } from "./context.js";

/** Options of {@link runSecurityEventStoreTests}. */
export type SecurityEventStoreTestOptions = StoreTestOptions<SecurityEventStore>;

/** The suite, for the package's own tests; not exported from the package. */
export const suite: StoreSuite<SecurityEventStore, SecurityEventContext> = {
  fn: "runSecurityEventStoreTests",
  contract: "security-event store contract",
  methods: securityEventMethods,
  optional: new Set(),
  groups: [recording, pruning, concurrency],
  context: (store) => securityEventContext(strictStore(store, securityEventMethods)),
};

/** Every test name of the security-event store suite, as accepted by the `skip` option. */
export const securityEventStoreTestNames: readonly string[] = testNames(suite.groups);

/**
 * Registers vitest `describe`/`test` blocks that check `options.store` against the
 * `SecurityEventStore` contract (`securityLog.store`): an event reads back field for field, its
 * time to the millisecond, whatever its type; `list` returns one user's events newest first, at
 * most `limit`, only those strictly before `before`, so that paging walks the log once; events at
 * one instant, or recorded at one moment, are all kept; user ids are opaque; `prune` deletes,
 * for every user, the events strictly older than its cutoff. The suite's events are dated in
 * 2001 and its `prune` cutoffs are in 2001, so it may run against a store that already holds a
 * real log. Call it at the top level of a test file.
 *
 * @example
 * ```ts
 * import { runSecurityEventStoreTests } from "@gatehousejs/adapter-test";
 * import { MemorySecurityEventStore } from "@gatehousejs/core/security-log/memory";
 *
 * runSecurityEventStoreTests({ name: "memory", store: MemorySecurityEventStore() });
 * ```
 */
export function runSecurityEventStoreTests(options: SecurityEventStoreTestOptions): void {
  runStoreSuite(suite, options);
}
