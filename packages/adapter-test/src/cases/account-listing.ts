/**
 * `listAccountsByUserId`, an optional method (see `optionalMethods`): Gatehouse asks it whether
 * a user whose address is unproven holds any other way to sign in before an email link adopts
 * that user. A missing account there lets the link hand someone's account to whoever holds the
 * mailbox; an extra one only refuses a link.
 */

import type { AdapterAccount } from "@gatehousejs/core/adapters";
import { expect } from "vitest";
import { accountKey, type Context, expectRow, type Group } from "../context.js";

/** The accounts sorted by their key, so that the order an adapter returns does not matter. */
function sorted(accounts: readonly AdapterAccount[]): AdapterAccount[] {
  const key = (a: AdapterAccount) => JSON.stringify([a.provider, a.providerAccountId]);
  return [...accounts].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** Asserts that `listAccountsByUserId(userId)` returns exactly `expected`, in any order. */
async function expectListed(
  ctx: Context,
  userId: string,
  expected: readonly AdapterAccount[],
  where: string,
) {
  const listed: unknown = await ctx.a.listAccountsByUserId(userId);
  expect(Array.isArray(listed), `${where} must return an array`).toBe(true);
  const got = sorted(listed as AdapterAccount[]);
  expect(
    got.map(accountKey),
    `${where} must list exactly the user's accounts (provider and providerAccountId)`,
  ).toEqual(sorted(expected).map(accountKey));
  sorted(expected).forEach((account, i) => {
    expectRow(got[i], account, `${where}: the account of provider "${account.provider}"`);
  });
}

export const accountListing: Group = {
  title: "listing a user's accounts",
  cases: [
    {
      name: "listAccountsByUserId lists exactly the user's accounts, of every type",
      uses: ["createUser", "linkAccount", "listAccountsByUserId"],
      async run(ctx) {
        const user = await ctx.createUser();
        const other = await ctx.createUser();
        const mine = [
          ctx.newAccount(user.id, { provider: "gatehouse-test-a" }),
          ctx.newAccount(user.id, { provider: "gatehouse-test-b", type: "oidc" }),
          {
            userId: user.id,
            type: "email" as const,
            provider: "gatehouse-test-email",
            providerAccountId: user.email,
          },
          {
            userId: user.id,
            type: "webauthn" as const,
            provider: "gatehouse-test-passkey",
            providerAccountId: ctx.unique(),
          },
        ];
        // Another user's account of the same provider must not show up.
        const theirs = ctx.newAccount(other.id, { provider: "gatehouse-test-a" });
        for (const account of [...mine, theirs]) await ctx.a.linkAccount(account);

        await expectListed(ctx, user.id, mine, "listAccountsByUserId(id)");
        await expectListed(ctx, other.id, [theirs], "listAccountsByUserId(another user's id)");
      },
    },
    {
      name: "listAccountsByUserId returns [] for a user without accounts and for an unknown user",
      uses: ["createUser", "listAccountsByUserId"],
      async run(ctx) {
        const user = await ctx.createUser({ emailVerified: null });
        await expectListed(ctx, user.id, [], "listAccountsByUserId(id of a user with no account)");
        await expectListed(ctx, ctx.id(), [], "listAccountsByUserId(unknown id)");
      },
    },
    {
      name: "listAccountsByUserId no longer lists an unlinked account",
      uses: ["createUser", "linkAccount", "unlinkAccount", "listAccountsByUserId"],
      async run(ctx) {
        const user = await ctx.createUser();
        const gone = ctx.newAccount(user.id, { provider: "gatehouse-test-gone" });
        const kept = ctx.newAccount(user.id, { provider: "gatehouse-test-kept" });
        await ctx.a.linkAccount(gone);
        await ctx.a.linkAccount(kept);
        await ctx.a.unlinkAccount(accountKey(gone));
        await expectListed(ctx, user.id, [kept], "listAccountsByUserId(id) after unlinkAccount");
      },
    },
    {
      name: "listAccountsByUserId lists nothing for a deleted user, even under its id again",
      uses: ["createUser", "linkAccount", "deleteUser", "listAccountsByUserId"],
      async run(ctx) {
        const user = await ctx.createUser();
        await ctx.a.linkAccount(ctx.newAccount(user.id));
        await ctx.a.deleteUser(user.id);
        await expectListed(ctx, user.id, [], "listAccountsByUserId(id) after deleteUser");
        // A user re-created with the deleted id must not inherit the old accounts.
        const again = await ctx.a.createUser(ctx.newUser({ id: user.id }));
        await expectListed(
          ctx,
          again.id,
          [],
          "listAccountsByUserId(id) of a user re-created with a deleted user's id",
        );
      },
    },
  ],
};
