/**
 * What the three store suites share: a store without the optional listing methods still passes
 * the revocation suite, the listing cases skipped with the reason printed; `skip` leaves out
 * tests by name or by method, and refuses an entry that matches nothing; a store given as a
 * function is looked up when a test runs, after `beforeAll`; `db.connect` and `db.disconnect`
 * run around the suite; a missing method fails with advice.
 */
import {
  rateLimitStoreTestNames,
  revocationStoreTestNames,
  runRateLimitStoreTests,
  runRevocationStoreTests,
  runSecurityEventStoreTests,
  securityEventStoreTestNames,
} from "@gatehousejs/adapter-test";
import { MemoryRateLimitStore } from "@gatehousejs/core";
import { MemoryRevocationStore } from "@gatehousejs/core/revocation/memory";
import { MemorySecurityEventStore } from "@gatehousejs/core/security-log/memory";
import type { RateLimitStore } from "@gatehousejs/core/types";
import { beforeAll, describe, expect, test, vi } from "vitest";
import { missingStoreAdvice, strictStore } from "../src/store-suite.js";

const info = vi.spyOn(console, "info").mockImplementation(() => {});
const printed = () => info.mock.calls.map((call) => String(call[0]));

const { recordSession: _record, listSessions: _list, ...withoutListing } = MemoryRevocationStore();
runRevocationStoreTests({ name: "without listing", store: withoutListing });

const listingCases = revocationStoreTestNames.filter((name) => /list|record/.test(name));

test("the revocation suite names 7 cases that need the listing methods", () => {
  expect(listingCases).toHaveLength(7);
});

test("each of them was skipped with the optional method it needs as the reason", () => {
  for (const name of listingCases) {
    expect(
      printed().some(
        (line) =>
          line.includes("revocation store contract: without listing") &&
          line.includes(`skipped "${name}"`) &&
          /store\.(recordSession|listSessions), which is optional and not implemented/.test(line),
      ),
      name,
    ).toBe(true);
  }
});

describe("a store opened in beforeAll, given as a function", () => {
  let opened: RateLimitStore | undefined;
  let lookups = 0;
  const hooks: string[] = [];
  beforeAll(() => {
    opened = MemoryRateLimitStore();
  });
  const [kept, ...others] = rateLimitStoreTestNames.slice(1);
  runRateLimitStoreTests({
    name: "opened later",
    store: () => {
      if (!opened) throw new Error("the store was looked up before beforeAll opened it");
      lookups++;
      return opened;
    },
    db: {
      connect: () => void hooks.push("connect"),
      disconnect: () => void hooks.push("disconnect"),
    },
    skip: others,
  });

  test("the one case left ran on it, between connect and disconnect", async () => {
    expect(kept).toMatch(/^hits on one key count 1, 2, 3/);
    expect(hooks).toEqual(["connect", "disconnect"]);
    expect(lookups, "store lookups by the case that ran").toBeGreaterThan(0);
    expect(printed().filter((line) => line.includes("opened later"))).toHaveLength(others.length);
  });
});

describe("skip", () => {
  runSecurityEventStoreTests({
    name: "skipping prune",
    store: MemorySecurityEventStore(),
    skip: ["prune", securityEventStoreTestNames[1]!],
  });

  test("a method's name leaves out every test that calls it; a test's name, that test", () => {
    const lines = printed().filter((line) => line.includes("skipping prune"));
    expect(lines.some((line) => /calls store\.prune, which is in options\.skip/.test(line))).toBe(
      true,
    );
    expect(lines.some((line) => line.includes("its name is in options.skip"))).toBe(true);
    expect(lines).toHaveLength(2);
  });

  test("an entry that matches no test and no method throws, naming the methods", () => {
    expect(() =>
      runRateLimitStoreTests({ store: MemoryRateLimitStore(), skip: ["hits", "peek"] }),
    ).toThrow(
      'runRateLimitStoreTests: options.skip has entries that match no test and no store method: "hits". Method names: hit, peek, reset.',
    );
  });
});

describe("a missing method", () => {
  test("rejects with advice naming it, not with a TypeError about undefined", async () => {
    const store = strictStore<RateLimitStore>(
      () => ({ hit: async () => ({ count: 1, resetAt: 0 }) }) as unknown as RateLimitStore,
      ["hit", "peek", "reset"],
    );
    await expect(store.peek("k")).rejects.toThrow(
      "store.peek is not implemented. Implement it, or list it in the `skip` option",
    );
    expect(await store.hit("k", 1)).toEqual({ count: 1, resetAt: 0 });
    expect(missingStoreAdvice(["peek", "reset"])).toMatch(
      /^store\.peek, store\.reset are not implemented\. Implement them/,
    );
  });
});
