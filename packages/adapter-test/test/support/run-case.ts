/**
 * Runs one case of a store suite outside the suite's `describe` block, so that the package's own
 * tests can show each case failing for a store with a bug and passing for one without.
 */
import type { StoreSuite } from "../../src/store-suite.js";

/** The names of a suite's own cases (the contract's method check aside), in order. */
export function caseNames(suite: StoreSuite<object, unknown>): string[] {
  return suite.groups.flatMap((g) => g.cases.map((c) => c.name));
}

/** Runs the case `name` of `suite` against `store`; rejects as the test would fail. */
export async function runCase<S extends object, C>(
  suite: StoreSuite<S, C>,
  store: S,
  name: string,
): Promise<void> {
  const found = suite.groups.flatMap((g) => g.cases).find((c) => c.name === name);
  if (!found) throw new Error(`no case named ${JSON.stringify(name)}`);
  await found.run(suite.context(() => store));
}

/** Lets other calls run: where a store with a race reads, then writes in another step. */
export const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 1));
