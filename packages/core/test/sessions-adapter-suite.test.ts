/**
 * The adapter suite against an adapter shaped like one written for Auth.js: without
 * listSessionsByUserId and deleteSessionsByUserId it still passes, the session-listing cases
 * skipped with the reason printed; with them (the memory adapter) the cases run.
 */
import { adapterTestNames, runAdapterTests } from "@gatehousejs/adapter-test";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { expect, test, vi } from "vitest";

const info = vi.spyOn(console, "info").mockImplementation(() => {});

const {
  listSessionsByUserId: _list,
  deleteSessionsByUserId: _delete,
  ...withoutListing
} = MemoryAdapter();
runAdapterTests({ name: "MemoryAdapter without session listing", adapter: withoutListing });

const listingCases = adapterTestNames.filter(
  (name) => name.includes("SessionsByUserId") || name.includes("metadata"),
);

test("the suite names four session-listing cases", () => {
  expect(listingCases).toHaveLength(4);
});

test("each of them was skipped with the optional method it needs as the reason", () => {
  const lines = info.mock.calls.map((call) => String(call[0]));
  for (const name of listingCases) {
    expect(
      lines.some(
        (line) =>
          line.includes(`skipped "${name}"`) &&
          /SessionsByUserId, which is optional and not implemented/.test(line),
      ),
      name,
    ).toBe(true);
  }
});
