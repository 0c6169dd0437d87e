/**
 * The deleteAuthenticator cases of the adapter suite can fail: the memory adapter passes each of
 * them, and the same adapter with one bug in deleting a passkey fails the cases named for that
 * bug. Without the optional `deleteAuthenticator`, the cases are skipped with the reason printed.
 */

import { adapterTestNames } from "@gatehousejs/adapter-test";
import type { Adapter, AdapterAuthenticator } from "@gatehousejs/core/adapters";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { describe, expect, test } from "vitest";
import { authenticators } from "../src/cases/authenticators.js";
import { createContext, skipReason } from "../src/context.js";

type Bug =
  | "returns nothing"
  | "returns undefined for an unknown credential id"
  | "returns the row but keeps it"
  | "keeps the passkey in the user's list"
  | "deletes every passkey of the user"
  | "resets the counter of every other passkey"
  | "returns the row again the second time"
  | "also unlinks the webauthn account";

/** The memory adapter, with `bug` in its `deleteAuthenticator`. */
function buggy(bug?: Bug): Adapter {
  const adapter = MemoryAdapter();
  if (!bug) return adapter;
  /** Rows the bugs remember after a delete. */
  const gone = new Map<string, AdapterAuthenticator>();
  const remove = adapter.deleteAuthenticator.bind(adapter);
  const list = adapter.listAuthenticatorsByUserId.bind(adapter);
  const create = adapter.createAuthenticator.bind(adapter);
  /** Every credential id created, of every user. */
  const created = new Set<string>();
  return {
    ...adapter,
    async createAuthenticator(authenticator) {
      const row = await create(authenticator);
      created.add(row.credentialID);
      return row;
    },
    async deleteAuthenticator(credentialID) {
      if (bug === "returns the row again the second time" && gone.has(credentialID)) {
        return gone.get(credentialID) ?? null;
      }
      if (bug === "returns the row but keeps it") return adapter.getAuthenticator(credentialID);
      const deleted = await remove(credentialID);
      if (deleted) gone.set(credentialID, deleted);
      if (!deleted)
        return bug === "returns undefined for an unknown credential id" ? undefined! : null;
      if (bug === "deletes every passkey of the user") {
        for (const row of await list(deleted.userId)) await remove(row.credentialID);
      }
      if (bug === "resets the counter of every other passkey") {
        for (const id of created) {
          if (id !== credentialID) await adapter.updateAuthenticatorCounter(id, 0);
        }
      }
      if (bug === "also unlinks the webauthn account") {
        await adapter.unlinkAccount({ provider: "webauthn", providerAccountId: credentialID });
      }
      return bug === "returns nothing" ? null : deleted;
    },
    async listAuthenticatorsByUserId(userId) {
      const rows = await list(userId);
      if (bug !== "keeps the passkey in the user's list") return rows;
      return [...rows, ...[...gone.values()].filter((row) => row.userId === userId)];
    },
  };
}

const suite = authenticators.cases.filter((c) => c.uses.includes("deleteAuthenticator"));
const names = suite.map((c) => c.name);
const [gone, alone, unknown, twice, account] = names;

/** Runs the case `name` against `adapter`; rejects as the test would fail. */
async function runCase(adapter: Adapter, name: string): Promise<void> {
  const found = suite.find((c) => c.name === name);
  if (!found) throw new Error(`no case named ${JSON.stringify(name)}`);
  await found.run(createContext({ adapter }));
}

/** Each bug, and the cases that must fail for it. */
const caught: [Bug, (string | undefined)[]][] = [
  ["returns nothing", [gone, alone, twice]],
  ["returns undefined for an unknown credential id", [unknown, twice]],
  ["returns the row but keeps it", [gone, alone, twice]],
  ["keeps the passkey in the user's list", [gone, alone]],
  ["deletes every passkey of the user", [alone]],
  ["resets the counter of every other passkey", [alone]],
  ["returns the row again the second time", [twice]],
  ["also unlinks the webauthn account", [account]],
];
const failures = caught.flatMap(([bug, cases]) => cases.map((name) => [bug, name!] as const));

describe("the deleteAuthenticator cases", () => {
  test("are the 5 this test names, in the suite under their own names", () => {
    expect(names).toHaveLength(5);
    expect(new Set(caught.flatMap(([, cases]) => cases))).toEqual(new Set(names));
    expect(gone).toMatch(/returns the deleted authenticator/);
    for (const name of names) expect(adapterTestNames).toContain(name);
  });

  test.each(names)("the memory adapter passes: %s", async (name) => {
    await runCase(buggy(), name);
  });

  test.each(failures)("an adapter that %s fails: %s", async (bug, name) => {
    // An assertion of the case, not an error of the adapter written here.
    await expect(runCase(buggy(bug), name)).rejects.toHaveProperty("name", "AssertionError");
  });
});

describe("an adapter without deleteAuthenticator", () => {
  const { deleteAuthenticator: _omitted, ...without } = MemoryAdapter();

  test("the suite skips every case that calls it, naming it, and no other", () => {
    for (const c of authenticators.cases) {
      const reason = skipReason(c, new Set(), without);
      if (names.includes(c.name)) {
        expect(reason, c.name).toBe(
          "it calls adapter.deleteAuthenticator, which is optional and not implemented",
        );
      } else {
        expect(reason, c.name).toBeUndefined();
      }
    }
  });

  test("and listing deleteAuthenticator in skip skips them too", () => {
    for (const c of suite) {
      expect(skipReason(c, new Set(["deleteAuthenticator"]), MemoryAdapter())).toBe(
        "it calls adapter.deleteAuthenticator, which is in options.skip",
      );
    }
  });
});
