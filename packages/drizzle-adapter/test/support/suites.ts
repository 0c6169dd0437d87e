/**
 * Every suite of `@gatehousejs/adapter-test` on one kind of database: the adapter contract and
 * the revocation, security-event and rate-limit store contracts, then the cases beyond them.
 * Each part gets a fresh database of its own.
 */
import {
  runAdapterTests,
  runRateLimitStoreTests,
  runRevocationStoreTests,
  runSecurityEventStoreTests,
} from "@gatehousejs/adapter-test";
import { describe } from "vitest";
import {
  DrizzleAdapter,
  DrizzleRateLimitStore,
  DrizzleRevocationStore,
  DrizzleSecurityEventStore,
} from "../../src/index.js";
import { olderSchemaCases, storeCases } from "./cases.js";
import type { Harness } from "./databases.js";
import { readers } from "./readers.js";

export function allSuites(open: () => Harness, options: { skip?: boolean } = {}): void {
  const probe = open();
  describe.skipIf(options.skip === true)(probe.name, () => {
    const h = probe;
    runAdapterTests({
      name: h.name,
      adapter: DrizzleAdapter(h.db),
      db: { connect: () => h.setup(), disconnect: () => h.close(), ...readers(h) },
    });
    const s = open();
    runRevocationStoreTests({
      name: s.name,
      store: DrizzleRevocationStore(s.db),
      db: { connect: () => s.setup() },
    });
    runSecurityEventStoreTests({ name: s.name, store: DrizzleSecurityEventStore(s.db) });
    runRateLimitStoreTests({
      name: s.name,
      store: DrizzleRateLimitStore(s.db),
      db: { disconnect: () => s.close() },
    });
    storeCases(open);
    olderSchemaCases(open);
  });
}
