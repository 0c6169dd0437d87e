import type { RevocationStore } from "@gatehousejs/core/types";
import {
  runStoreSuite,
  type StoreSuite,
  type StoreTestOptions,
  strictStore,
  testNames,
} from "../store-suite.js";
import {
  optionalRevocationMethods,
  type RevocationContext,
  revocationContext,
  revocationMethods,
} from "./context.js";
import { concurrency, listing } from "./listing.js";
import { revocationExpiry, revokingSessions, revokingUsers } from "./revoking.js";

export type { RevocationStoreMethod } from "./context.js";

/** Options of {@link runRevocationStoreTests}. */
export type RevocationStoreTestOptions = StoreTestOptions<RevocationStore>;

/** The suite, for the package's own tests; not exported from the package. */
export const suite: StoreSuite<RevocationStore, RevocationContext> = {
  fn: "runRevocationStoreTests",
  contract: "revocation store contract",
  methods: revocationMethods,
  optional: optionalRevocationMethods,
  groups: [revokingSessions, revokingUsers, revocationExpiry, listing, concurrency],
  context: (store) =>
    revocationContext(strictStore(store, revocationMethods) as Required<RevocationStore>),
};

/** Every test name of the revocation store suite, as accepted by the `skip` option. */
export const revocationStoreTestNames: readonly string[] = testNames(suite.groups);

/**
 * Registers vitest `describe`/`test` blocks that check `options.store` against the
 * `RevocationStore` contract (`session.revocation.store`, for JWT sessions): `check` is false for
 * what nobody revoked; `revokeSession` ends one session of one user, whenever it was issued;
 * `revokeUser` ends the sessions issued at or before `at` except `except`, never sparing the id
 * `legacy`; revocations add up and hold until their `expires`, however often they are repeated;
 * ids are opaque; and, when the store has the optional `recordSession` and `listSessions`, a
 * listing holds exactly the user's recorded sessions that are neither expired nor revoked, field
 * for field, a session recorded again updated in place. Every test uses fresh random user ids,
 * so the suite may run against a store that already holds data. Call it at the top level of a
 * test file.
 *
 * @example
 * ```ts
 * import { runRevocationStoreTests } from "@gatehousejs/adapter-test";
 * import { MemoryRevocationStore } from "@gatehousejs/core/revocation/memory";
 *
 * runRevocationStoreTests({ name: "memory", store: MemoryRevocationStore() });
 * ```
 */
export function runRevocationStoreTests(options: RevocationStoreTestOptions): void {
  runStoreSuite(suite, options);
}
