/**
 * Password accounts. Gatehouse's password provider keeps a user's password hash on an account
 * row: `type: "password"`, the provider's id (`"password"` unless the app names it otherwise),
 * the user's id as `providerAccountId`, and the hash in `passwordHash`, a field beyond Auth.js's
 * account. The adapter stores it with `linkAccount`, reads it back with `getAccount`, changes it
 * with `updateAccount` (`null` clears it) and removes it with `unlinkAccount`. An adapter that
 * drops the field, alters it, or lets one account's hash reach another fails here rather than at
 * a user's first sign-in.
 */

import type { AdapterAccount, AdapterUser } from "@gatehousejs/core/adapters";
import { expect } from "vitest";
import {
  accountKey,
  type Context,
  expectNull,
  expectRow,
  expectRowOrNothing,
  type Group,
} from "../context.js";

/** The password provider's id when the app does not name it. */
const PROVIDER = "password";

/**
 * A stand-in for a stored hash, `length` characters long, unique, holding the characters that
 * break careless storage: `$` (hash formats), `+` and `/` (standard base64: a form decoder turns
 * `+` into a space) and `=` (its padding).
 */
export function fakeHash(length = 120): string {
  const random = Buffer.from(crypto.getRandomValues(new Uint8Array(length))).toString("base64");
  return `${`$gatehouse-test$N=32768,r=8,p=1$+/${random}`.slice(0, length - 2)}==`;
}

/** A password account as the password provider links it. */
export function passwordAccount(
  user: Pick<AdapterUser, "id">,
  passwordHash: string,
  provider = PROVIDER,
): AdapterAccount {
  return {
    userId: user.id,
    // The password provider adds "password" to the account types when it is loaded; the suite
    // does not load it.
    type: "password" as AdapterAccount["type"],
    provider,
    providerAccountId: user.id,
    passwordHash,
  };
}

/** The hash `getAccount` reads back for `account` (`null` when none, or no account). */
async function storedHash(ctx: Context, account: AdapterAccount): Promise<unknown> {
  const stored = await ctx.a.getAccount(account.providerAccountId, account.provider);
  return stored?.passwordHash ?? null;
}

/** Links `account` and checks that `getAccount` reads its hash back. */
async function link(ctx: Context, account: AdapterAccount, where: string): Promise<void> {
  expectRowOrNothing(await ctx.a.linkAccount(account), account, `linkAccount(${where})`);
  expectRow(
    await ctx.a.getAccount(account.providerAccountId, account.provider),
    account,
    `getAccount(${where}) after linkAccount`,
  );
}

/** A fresh user with a password account holding a fresh hash. */
async function userWithPassword(ctx: Context) {
  const user = await ctx.createUser();
  const account = passwordAccount(user, fakeHash());
  await link(ctx, account, "a password account");
  return { user, account, key: accountKey(account) };
}

export const passwordAccounts: Group = {
  title: "password accounts (the hash on an account row)",
  cases: [
    {
      name: "a password account's passwordHash is stored by linkAccount and read back by getAccount; getUserByAccount finds its user",
      uses: ["createUser", "linkAccount", "getAccount", "getUserByAccount"],
      async run(ctx) {
        const { user, account, key } = await userWithPassword(ctx);
        expectRow(await ctx.a.getUserByAccount(key), user, "getUserByAccount(password account)");
        if (ctx.db.account) {
          expectRow(await ctx.db.account(key), account, "db.account(password account)");
        }
      },
    },
    {
      name: "a password hash is never altered: 200 characters with $, =, / and + come back as given, under any provider id",
      uses: ["createUser", "linkAccount", "getAccount"],
      async run(ctx) {
        const user = await ctx.createUser();
        const hash = fakeHash(200);
        const account = passwordAccount(user, hash, "gatehouse-test-password");
        await ctx.a.linkAccount(account);
        const where = "must be read back exactly as given (200 characters with $, =, / and +)";
        expect(await storedHash(ctx, account), `getAccount: passwordHash ${where}`).toBe(hash);
        if (ctx.db.account) {
          const row = await ctx.db.account(accountKey(account));
          expect(row?.passwordHash, `db.account: passwordHash ${where}`).toBe(hash);
        }
        if (ctx.has("updateAccount")) {
          const next = fakeHash(200);
          const updated = await ctx.a.updateAccount({ ...accountKey(account), passwordHash: next });
          expect(updated?.passwordHash, `updateAccount's return value: passwordHash ${where}`).toBe(
            next,
          );
          expect(await storedHash(ctx, account), `getAccount after updateAccount ${where}`).toBe(
            next,
          );
        }
      },
    },
    {
      name: "updating a password account's passwordHash changes that field only and returns the updated account",
      uses: ["createUser", "linkAccount", "updateAccount", "getAccount", "getUserByAccount"],
      async run(ctx) {
        const { user, account, key } = await userWithPassword(ctx);
        // The user's other account must not be touched by an update of the password account.
        const oauth = ctx.newAccount(user.id);
        await ctx.a.linkAccount(oauth);
        const changed = { ...account, passwordHash: fakeHash() };
        expectRow(
          await ctx.a.updateAccount({ ...key, passwordHash: changed.passwordHash }),
          changed,
          "updateAccount({ passwordHash })'s return value",
        );
        expectRow(
          await ctx.a.getAccount(account.providerAccountId, account.provider),
          changed,
          "getAccount after updateAccount({ passwordHash })",
        );
        expectRow(await ctx.a.getUserByAccount(key), user, "getUserByAccount after the update");
        const other = await ctx.a.getAccount(oauth.providerAccountId, oauth.provider);
        expectRow(other, oauth, "the user's other account after the password account's update");
        expect(
          other.passwordHash ?? null,
          "the user's other account must not gain the password account's hash",
        ).toBeNull();
      },
    },
    {
      name: "updating the passwordHash of an unknown account returns null and creates no account",
      uses: ["createUser", "linkAccount", "updateAccount", "getAccount"],
      async run(ctx) {
        const { user, account } = await userWithPassword(ctx);
        const elsewhere = [
          { provider: PROVIDER, providerAccountId: ctx.id(), what: "an unknown account id" },
          {
            provider: "gatehouse-test-other",
            providerAccountId: user.id,
            what: "another provider",
          },
        ];
        for (const { what, ...key } of elsewhere) {
          expectNull(
            await ctx.a.updateAccount({ ...key, passwordHash: fakeHash() }),
            `updateAccount({ passwordHash }) of ${what}`,
          );
          expectNull(
            await ctx.a.getAccount(key.providerAccountId, key.provider),
            `getAccount of ${what} after updateAccount (no account may be created)`,
          );
        }
        expect(
          await storedHash(ctx, account),
          "the existing password account's hash must stay as it was",
        ).toBe(account.passwordHash);
      },
    },
    {
      name: "passwordHash: null clears the hash and keeps the account; a new hash can be set again",
      uses: ["createUser", "linkAccount", "updateAccount", "getAccount", "getUserByAccount"],
      async run(ctx) {
        const { user, account, key } = await userWithPassword(ctx);
        const { passwordHash: _cleared, ...rest } = account;
        const cleared = await ctx.a.updateAccount({ ...key, passwordHash: null });
        expectRow(cleared, rest, "updateAccount({ passwordHash: null })'s return value");
        // A column set to NULL may read back as null or be left out, as for other fields.
        expect(
          cleared.passwordHash ?? null,
          "updateAccount({ passwordHash: null }) must return the account without its hash",
        ).toBeNull();
        const stored = await ctx.a.getAccount(account.providerAccountId, account.provider);
        expectRow(stored, rest, "getAccount after clearing the hash");
        expect(
          stored.passwordHash ?? null,
          "getAccount after updateAccount({ passwordHash: null }) must find no hash",
        ).toBeNull();
        if (ctx.db.account) {
          const row = await ctx.db.account(key);
          expect(row?.passwordHash ?? null, "db.account after clearing the hash").toBeNull();
        }
        expectRow(await ctx.a.getUserByAccount(key), user, "getUserByAccount after clearing");
        const again = fakeHash();
        await ctx.a.updateAccount({ ...key, passwordHash: again });
        expect(await storedHash(ctx, account), "a hash set after clearing").toBe(again);
      },
    },
    {
      name: "unlinkAccount removes a password account with its hash; a new link starts from nothing",
      uses: ["createUser", "linkAccount", "unlinkAccount", "getAccount", "getUserByAccount"],
      async run(ctx) {
        const { user, account, key } = await userWithPassword(ctx);
        expectRowOrNothing(
          await ctx.a.unlinkAccount(key),
          account,
          "unlinkAccount(password account)'s return value",
        );
        expectNull(
          await ctx.a.getAccount(account.providerAccountId, account.provider),
          "getAccount after unlinkAccount",
        );
        expectNull(await ctx.a.getUserByAccount(key), "getUserByAccount after unlinkAccount");
        if (ctx.db.account) {
          expect(await ctx.db.account(key), "db.account after unlinkAccount").toBeFalsy();
        }
        // Linked again (a password set anew), it holds the new hash and nothing of the old row.
        await link(ctx, passwordAccount(user, fakeHash()), "the password account linked again");
      },
    },
    {
      name: "two users' password accounts never mix",
      uses: ["createUser", "linkAccount", "getAccount", "getUserByAccount", "unlinkAccount"],
      async run(ctx) {
        const first = await userWithPassword(ctx);
        const second = await userWithPassword(ctx);
        const expectApart = async (when: string) => {
          for (const { user, account, key } of [first, second]) {
            const whose = user === first.user ? "the first user's" : "the second user's";
            expectRow(
              await ctx.a.getAccount(account.providerAccountId, account.provider),
              account,
              `getAccount(${whose} password account) ${when}`,
            );
            expectRow(
              await ctx.a.getUserByAccount(key),
              user,
              `getUserByAccount(${whose} password account) ${when}`,
            );
            if (ctx.has("listAccountsByUserId")) {
              const listed = await ctx.a.listAccountsByUserId(user.id);
              expect(listed, `listAccountsByUserId(${whose} id) ${when}`).toHaveLength(1);
              expectRow(listed[0], account, `listAccountsByUserId(${whose} id)[0] ${when}`);
            }
          }
        };
        await expectApart("after both were linked");
        if (ctx.has("updateAccount")) {
          first.account.passwordHash = fakeHash();
          expectRow(
            await ctx.a.updateAccount({
              ...first.key,
              passwordHash: first.account.passwordHash,
            }),
            first.account,
            "updateAccount(the first user's password account)",
          );
          await expectApart("after the first user's hash changed");
        }
        await ctx.a.unlinkAccount(first.key);
        expectRow(
          await ctx.a.getAccount(second.account.providerAccountId, second.account.provider),
          second.account,
          "getAccount(the second user's password account) after the first one was unlinked",
        );
      },
    },
  ],
};
