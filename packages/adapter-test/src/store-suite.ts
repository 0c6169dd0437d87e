/**
 * What the three store suites share: their options, the `describe` block they register, the
 * `skip` option, and a view of the store whose missing methods reject with advice.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";

type Awaitable<T> = T | PromiseLike<T>;

/**
 * Options of `runRevocationStoreTests`, `runSecurityEventStoreTests` and
 * `runRateLimitStoreTests`: `S` is the store contract.
 */
export interface StoreTestOptions<S extends object> {
  /**
   * The store under test, or a function that returns it. The function is called each time a test
   * uses the store, so a store that is opened in your own `beforeAll` can be given as
   * `() => opened`.
   */
  store: S | (() => S);
  /** Shown in the `describe` title; defaults to `"store"`. */
  name?: string;
  /** Hooks around the suite. */
  db?: {
    /** Called once before the first test (in `beforeAll`): create your tables here. */
    connect?(): Awaitable<void>;
    /** Called once after the last test (in `afterAll`). */
    disconnect?(): Awaitable<void>;
  };
  /**
   * Tests to leave out: a test's name, or the name of a store method (which leaves out every
   * test that calls it). Each skipped test is logged with the reason. An entry that matches no
   * test and no method throws, so that a typo cannot silently disable nothing.
   */
  skip?: readonly string[];
}

/** One test of a store suite: its name, the store methods it calls, and its body. */
export interface StoreCase<C> {
  name: string;
  uses: readonly string[];
  run(ctx: C): Promise<void>;
  /** For the few cases that wait for something to expire or race many calls. */
  timeout?: number;
}

/** A `describe` block of a store suite. */
export interface StoreGroup<C> {
  title: string;
  cases: readonly StoreCase<C>[];
}

/** What a suite is made of. */
export interface StoreSuite<S extends object, C> {
  /** The exported function's name, for error messages. */
  fn: string;
  /** Shown in the `describe` title: `<contract>: <name>`. */
  contract: string;
  /** Every method of the contract. */
  methods: readonly string[];
  /** The methods a store may lack; the tests that call them are skipped when it does. */
  optional: ReadonlySet<string>;
  groups: readonly StoreGroup<C>[];
  /** Builds what every test receives, from the store (looked up at each use). */
  context(store: () => S): C;
}

const METHODS_CASE = "implements every method of the contract that is not optional or skipped";

/** Every test name of a suite, as accepted by its `skip` option. */
export function testNames(groups: readonly StoreGroup<never>[]): readonly string[] {
  return [METHODS_CASE, ...groups.flatMap((g) => g.cases.map((c) => c.name))];
}

/** The failure message for methods the store lacks. */
export function missingStoreAdvice(missing: readonly string[]): string {
  const list = missing.map((m) => `store.${m}`).join(", ");
  const one = missing.length === 1;
  return `${list} ${one ? "is" : "are"} not implemented. Implement ${one ? "it" : "them"}, or list ${one ? "it" : "them"} in the \`skip\` option to leave out the tests that need ${one ? "it" : "them"}.`;
}

/**
 * The store with every contract method present and returning a promise: a missing method rejects
 * with advice instead of a `TypeError` about `undefined`.
 */
export function strictStore<S extends object>(store: () => S, methods: readonly string[]): S {
  const entries = methods.map((name) => {
    const call = async (...args: unknown[]) => {
      const target = store() as Record<string, unknown>;
      const method = target[name];
      if (typeof method !== "function") throw new Error(missingStoreAdvice([name]));
      return (method as (...a: unknown[]) => unknown).apply(target, args);
    };
    return [name, call];
  });
  return Object.fromEntries(entries) as S;
}

/** Registers a suite's `describe` block for `options`. */
export function runStoreSuite<S extends object, C>(
  suite: StoreSuite<S, C>,
  options: StoreTestOptions<S>,
): void {
  const names = testNames(suite.groups);
  const skip = new Set<string>(options.skip ?? []);
  const known = new Set<string>([...suite.methods, ...names]);
  const unknown = [...skip].filter((entry) => !known.has(entry));
  if (unknown.length > 0) {
    throw new Error(
      `${suite.fn}: options.skip has entries that match no test and no store method: ${unknown
        .map((u) => JSON.stringify(u))
        .join(", ")}. Method names: ${suite.methods.join(", ")}.`,
    );
  }
  const given = options.store;
  const current = (): S => (typeof given === "function" ? (given as () => S)() : given);
  const ctx = suite.context(current);
  const title = `${suite.contract}: ${options.name ?? "store"}`;
  const methodsCase: StoreCase<C> = {
    name: METHODS_CASE,
    uses: [],
    async run() {
      const store = current() as Record<string, unknown>;
      const absent = suite.methods.filter(
        (m) => typeof store[m] !== "function" && !skip.has(m) && !suite.optional.has(m),
      );
      expect(absent, absent.length ? missingStoreAdvice(absent) : "").toEqual([]);
    },
  };
  const groups = [{ title: "contract", cases: [methodsCase] }, ...suite.groups];

  describe(title, () => {
    beforeAll(async () => {
      await options.db?.connect?.();
    });
    afterAll(async () => {
      await options.db?.disconnect?.();
    });

    for (const group of groups) {
      describe(group.title, () => {
        for (const c of group.cases) {
          const listed = skip.has(c.name)
            ? "its name is in options.skip"
            : c.uses.find((m) => skip.has(m)) &&
              `it calls store.${c.uses.find((m) => skip.has(m))}, which is in options.skip`;
          if (listed) {
            console.info(`[adapter-test] ${title}: skipped "${c.name}": ${listed}`);
            test.skip(c.name, () => {});
            continue;
          }
          test(
            c.name,
            async (t) => {
              // Decided here, not when the suite is registered: the store may be opened later.
              const store = current() as Record<string, unknown>;
              const absent = c.uses.filter((m) => typeof store[m] !== "function");
              const optional = absent.find((m) => suite.optional.has(m));
              if (optional) {
                const reason = `it calls store.${optional}, which is optional and not implemented`;
                console.info(`[adapter-test] ${title}: skipped "${c.name}": ${reason}`);
                t.skip(reason);
              }
              if (absent.length > 0) throw new Error(missingStoreAdvice(absent));
              await c.run(ctx);
            },
            c.timeout,
          );
        }
      });
    }
  });
}
