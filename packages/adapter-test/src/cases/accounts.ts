import { expect } from "vitest";
import { accountKey, expectNull, expectRow, expectRowOrNothing, type Group } from "../context.js";

export const accounts: Group = {
  title: "accounts",
  cases: [
    {
      name: "linkAccount stores the account and getUserByAccount finds its user",
      uses: ["createUser", "linkAccount", "getUserByAccount"],
      async run(ctx) {
        const user = await ctx.createUser();
        const account = ctx.newAccount(user.id);
        expectRowOrNothing(await ctx.a.linkAccount(account), account, "linkAccount's return value");
        expectRow(await ctx.a.getUserByAccount(accountKey(account)), user, "getUserByAccount(key)");
        if (ctx.db.account) {
          expectRow(
            await ctx.db.account(accountKey(account)),
            account,
            "db.account(key) after linkAccount",
          );
        }
      },
    },
    {
      name: "getUserByAccount returns null when the provider or the account id differs",
      uses: ["createUser", "linkAccount", "getUserByAccount"],
      async run(ctx) {
        const user = await ctx.createUser();
        const account = ctx.newAccount(user.id);
        await ctx.a.linkAccount(account);
        const { provider, providerAccountId } = account;
        expectNull(
          await ctx.a.getUserByAccount({ provider: "another-provider", providerAccountId }),
          "getUserByAccount(other provider, same account id)",
        );
        expectNull(
          await ctx.a.getUserByAccount({ provider, providerAccountId: ctx.unique() }),
          "getUserByAccount(same provider, unknown account id)",
        );
      },
    },
    {
      name: "getAccount returns the account, and null when the provider or the account id differs",
      uses: ["createUser", "linkAccount", "getAccount"],
      async run(ctx) {
        const user = await ctx.createUser();
        const account = ctx.newAccount(user.id);
        await ctx.a.linkAccount(account);
        const { provider, providerAccountId } = account;
        expectRow(await ctx.a.getAccount(providerAccountId, provider), account, "getAccount");
        expectNull(
          await ctx.a.getAccount(providerAccountId, "another-provider"),
          "getAccount(same account id, other provider)",
        );
        expectNull(
          await ctx.a.getAccount(ctx.unique(), provider),
          "getAccount(unknown account id, same provider)",
        );
      },
    },
    {
      name: "expires_at round-trips as a number",
      uses: ["createUser", "linkAccount", "getAccount"],
      async run(ctx) {
        const user = await ctx.createUser();
        // Past 2^31, to catch 32-bit integer columns.
        const account = ctx.newAccount(user.id, { expires_at: 4_102_444_800 });
        await ctx.a.linkAccount(account);
        const stored = await ctx.a.getAccount(account.providerAccountId, account.provider);
        expect(stored?.expires_at, "getAccount: expires_at must come back as a number").toBe(
          4_102_444_800,
        );
        if (ctx.db.account) {
          const row = await ctx.db.account(accountKey(account));
          expect(row?.expires_at, "db.account(key): expires_at").toBe(4_102_444_800);
        }
      },
    },
    {
      name: "one user can link accounts of several providers",
      uses: ["createUser", "linkAccount", "getUserByAccount"],
      async run(ctx) {
        const user = await ctx.createUser();
        const first = ctx.newAccount(user.id, { provider: "gatehouse-test-a" });
        const second = ctx.newAccount(user.id, { provider: "gatehouse-test-b", type: "oidc" });
        await ctx.a.linkAccount(first);
        await ctx.a.linkAccount(second);
        expectRow(
          await ctx.a.getUserByAccount(accountKey(first)),
          user,
          "getUserByAccount(first account)",
        );
        expectRow(
          await ctx.a.getUserByAccount(accountKey(second)),
          user,
          "getUserByAccount(second account)",
        );
      },
    },
    {
      name: "unlinkAccount removes the account and keeps the user",
      uses: ["createUser", "linkAccount", "unlinkAccount", "getUserByAccount", "getUser"],
      async run(ctx) {
        const user = await ctx.createUser();
        const account = ctx.newAccount(user.id);
        const kept = ctx.newAccount(user.id, { provider: "gatehouse-test-kept" });
        await ctx.a.linkAccount(account);
        await ctx.a.linkAccount(kept);
        const key = accountKey(account);
        expectRowOrNothing(await ctx.a.unlinkAccount(key), account, "unlinkAccount's return value");
        expectNull(await ctx.a.getUserByAccount(key), "getUserByAccount after unlinkAccount");
        expectRow(
          await ctx.a.getUserByAccount(accountKey(kept)),
          user,
          "getUserByAccount(other account)",
        );
        expectRow(await ctx.a.getUser(user.id), user, "getUser(id) after unlinkAccount");
        if (ctx.db.account) {
          expect(await ctx.db.account(key), "db.account(key) after unlinkAccount").toBeFalsy();
        }
      },
    },
  ],
};
