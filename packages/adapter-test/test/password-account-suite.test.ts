/**
 * The password-account cases of the adapter suite can fail: a small adapter written for this
 * test passes each of them, and the same adapter with one bug at a time fails the cases named for
 * that bug. An adapter that drops `passwordHash`, when it writes or when it reads, fails every
 * case. Without the optional `updateAccount`, the cases that need it are skipped with the reason
 * printed, and the others run.
 */

import { adapterTestNames } from "@gatehousejs/adapter-test";
import type { Adapter, AdapterAccount, AdapterUser } from "@gatehousejs/core/adapters";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { describe, expect, test } from "vitest";
import { passwordAccounts } from "../src/cases/password-accounts.js";
import { createContext, skipReason } from "../src/context.js";

type Bug =
  | "drops passwordHash when linking"
  | "drops passwordHash when reading"
  | "ignores passwordHash in updateAccount"
  | "cuts passwordHash to 191 characters"
  | "decodes + as a space"
  | "replaces the account with the patch in updateAccount"
  | "updates every account of the user"
  | "creates the account updateAccount cannot find"
  | "keeps the hash when updateAccount is given null"
  | "stores a null passwordHash as the text null"
  | "keeps the account after unlinkAccount"
  | "keeps an unlinked account's hash for the next link"
  | "keeps hashes by provider alone";

type Row = Record<string, unknown>;
type Key = Pick<AdapterAccount, "provider" | "providerAccountId">;

const keyOf = (key: Key) => JSON.stringify([key.provider, key.providerAccountId]);
const without = (row: Row, field: string): Row => {
  const { [field]: _dropped, ...rest } = row;
  return rest;
};

/** Users and accounts in memory, right unless given a bug. */
function toyAdapter(bug?: Bug): Adapter {
  const users = new Map<string, AdapterUser>();
  const accounts = new Map<string, Row>();
  // Where two of the bugs keep hashes: beside the accounts, by account key or by provider.
  const hashes = new Map<string, unknown>();
  const hashKey = (key: Key) =>
    bug === "keeps hashes by provider alone" ? key.provider : keyOf(key);
  const beside =
    bug === "keeps hashes by provider alone" ||
    bug === "keeps an unlinked account's hash for the next link";

  /** The hash as the store writes it. */
  const written = (hash: unknown) => {
    if (typeof hash !== "string") return hash;
    if (bug === "cuts passwordHash to 191 characters") return hash.slice(0, 191);
    if (bug === "decodes + as a space") return hash.replaceAll("+", " ");
    return hash;
  };
  /** An account as the store reads it back. */
  const read = (row: Row | undefined): AdapterAccount | null => {
    if (!row) return null;
    let account = { ...row };
    if (beside && hashes.has(hashKey(row as Key))) {
      account.passwordHash = hashes.get(hashKey(row as Key));
    }
    if (bug === "drops passwordHash when reading") account = without(account, "passwordHash");
    return account as AdapterAccount;
  };
  /** Merges `fields` into the stored account `key`; `null` removes a field. */
  const merge = (key: string, fields: Row) => {
    const row = { ...accounts.get(key) };
    for (const [field, value] of Object.entries(fields)) {
      if (value === null) delete row[field];
      else if (value !== undefined) row[field] = value;
    }
    accounts.set(key, row);
  };

  return {
    async createUser(user) {
      users.set(user.id, { ...user });
      return { ...user };
    },
    async getUser(id) {
      return users.get(id) ?? null;
    },
    async getUserByAccount(key) {
      const userId = accounts.get(keyOf(key))?.userId;
      return typeof userId === "string" ? (users.get(userId) ?? null) : null;
    },
    async linkAccount(account) {
      let row: Row = { ...account, passwordHash: written(account.passwordHash) };
      if (bug === "drops passwordHash when linking") row = without(row, "passwordHash");
      if (bug === "keeps hashes by provider alone") hashes.set(hashKey(account), row.passwordHash);
      if (bug === "keeps an unlinked account's hash for the next link") {
        if (!hashes.has(hashKey(account))) hashes.set(hashKey(account), row.passwordHash);
      }
      accounts.set(keyOf(account), row);
      return read(row) ?? undefined;
    },
    async getAccount(providerAccountId, provider) {
      return read(accounts.get(keyOf({ provider, providerAccountId })));
    },
    async listAccountsByUserId(userId) {
      return [...accounts.values()].filter((a) => a.userId === userId).map((a) => read(a)!);
    },
    async unlinkAccount(key) {
      const row = accounts.get(keyOf(key));
      if (bug !== "keeps the account after unlinkAccount") accounts.delete(keyOf(key));
      return read(row) ?? undefined;
    },
    async updateAccount(patch) {
      const key = keyOf(patch);
      let fields: Row = without(without(patch, "provider"), "providerAccountId");
      if (fields.passwordHash === null) {
        if (bug === "keeps the hash when updateAccount is given null") fields = {};
        if (bug === "stores a null passwordHash as the text null") fields.passwordHash = "null";
      } else {
        fields.passwordHash = written(fields.passwordHash);
      }
      if (bug === "ignores passwordHash in updateAccount") fields = without(fields, "passwordHash");
      if (beside && fields.passwordHash !== undefined)
        hashes.set(hashKey(patch), fields.passwordHash);
      const current = accounts.get(key);
      if (!current) {
        if (bug !== "creates the account updateAccount cannot find") return null;
        accounts.set(key, { ...patch, ...fields });
        return read(accounts.get(key));
      }
      if (bug === "replaces the account with the patch in updateAccount") {
        accounts.set(key, { provider: patch.provider, providerAccountId: patch.providerAccountId });
      }
      if (bug === "updates every account of the user") {
        for (const [other, row] of accounts)
          if (row.userId === current.userId) merge(other, fields);
      }
      merge(key, fields);
      return read(accounts.get(key));
    },
  };
}

const suite = passwordAccounts.cases;
const names = suite.map((c) => c.name);
const [stored, unaltered, changesOnlyIt, unknown, nullClears, unlinked, apart] = names;

/** Runs the case `name` against `adapter`; rejects as the test would fail. */
async function runCase(adapter: Adapter, name: string): Promise<void> {
  const found = suite.find((c) => c.name === name);
  if (!found) throw new Error(`no case named ${JSON.stringify(name)}`);
  await found.run(createContext({ adapter }));
}

/** Each bug, and the cases that must fail for it. */
const caught: [Bug, (string | undefined)[]][] = [
  ["drops passwordHash when linking", names],
  ["drops passwordHash when reading", names],
  ["ignores passwordHash in updateAccount", [unaltered, changesOnlyIt, nullClears, apart]],
  ["cuts passwordHash to 191 characters", [unaltered]],
  ["decodes + as a space", names],
  ["replaces the account with the patch in updateAccount", [changesOnlyIt, apart]],
  ["updates every account of the user", [changesOnlyIt]],
  ["creates the account updateAccount cannot find", [unknown]],
  ["keeps the hash when updateAccount is given null", [nullClears]],
  ["stores a null passwordHash as the text null", [nullClears]],
  ["keeps the account after unlinkAccount", [unlinked]],
  ["keeps an unlinked account's hash for the next link", [unlinked]],
  ["keeps hashes by provider alone", [apart]],
];
const failures = caught.flatMap(([bug, cases]) => cases.map((name) => [bug, name!] as const));

describe("the password-account cases", () => {
  test("are the 7 this test names, in the suite under their own names", () => {
    expect(names).toHaveLength(7);
    expect(new Set(caught.flatMap(([, cases]) => cases))).toEqual(new Set(names));
    expect(stored).toMatch(/stored by linkAccount/);
    for (const name of names) expect(adapterTestNames).toContain(name);
  });

  test.each(names)("an adapter without a bug passes: %s", async (name) => {
    await runCase(toyAdapter(), name);
  });

  test.each(names)("the memory adapter passes: %s", async (name) => {
    await runCase(MemoryAdapter(), name);
  });

  test.each(failures)("an adapter that %s fails: %s", async (bug, name) => {
    // An assertion of the case, not an error of the adapter written here.
    await expect(runCase(toyAdapter(bug), name)).rejects.toHaveProperty("name", "AssertionError");
  });
});

describe("an adapter without updateAccount", () => {
  const { updateAccount: _omitted, ...withoutUpdate } = MemoryAdapter();
  const reasons = new Map(suite.map((c) => [c.name, skipReason(c, new Set(), withoutUpdate)]));

  test("the suite skips the three cases that call it, naming it", () => {
    const skipped = [...reasons].filter(([, reason]) => reason !== undefined);
    expect(skipped.map(([name]) => name).sort()).toEqual(
      [changesOnlyIt, unknown, nullClears].sort(),
    );
    for (const [, reason] of skipped) {
      expect(reason).toBe("it calls adapter.updateAccount, which is optional and not implemented");
    }
  });

  test.each(names.filter((name) => reasons.get(name) === undefined))(
    "and runs the other four, which pass: %s",
    async (name) => {
      await runCase(withoutUpdate, name);
    },
  );
});
