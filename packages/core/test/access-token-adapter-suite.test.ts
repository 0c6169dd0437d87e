/**
 * The adapter suite against an adapter without the optional token-refresh methods
 * (updateAccount, lockAccount): it still passes, their cases skipped with the reason printed.
 * With them (the memory adapter, memory-adapter.test.ts) the cases run.
 */
import { adapterTestNames, runAdapterTests } from "@gatehousejs/adapter-test";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { expect, test, vi } from "vitest";

const info = vi.spyOn(console, "info").mockImplementation(() => {});

const { updateAccount: _update, lockAccount: _lock, ...withoutRefresh } = MemoryAdapter();
runAdapterTests({ name: "MemoryAdapter without token refresh", adapter: withoutRefresh });

const refreshCases = adapterTestNames.filter(
  (name) => name.startsWith("updateAccount") || name.startsWith("lockAccount"),
);

test("the suite names six token-refresh cases", () => {
  expect(refreshCases).toHaveLength(6);
});

test("each of them was skipped with the optional method it needs as the reason", () => {
  const lines = info.mock.calls.map((call) => String(call[0]));
  for (const name of refreshCases) {
    expect(
      lines.some(
        (line) =>
          line.includes(`skipped "${name}"`) &&
          /adapter\.(updateAccount|lockAccount), which is optional and not implemented/.test(line),
      ),
      name,
    ).toBe(true);
  }
});
