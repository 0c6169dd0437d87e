import type { AdapterAccount, AdapterUser } from "@gatehousejs/core/adapters";
import { expect } from "vitest";
import {
  accountKey,
  type Context,
  expectNull,
  expectRow,
  type Group,
  tokenKey,
} from "../context.js";

/** Outcomes allowed when one provider account is linked twice: one row, or a clean rejection. */
async function expectSingleAccount(
  ctx: Context,
  results: PromiseSettledResult<unknown>[],
  user: AdapterUser,
  account: AdapterAccount,
): Promise<void> {
  for (const result of results) {
    if (result.status === "rejected") {
      expect(result.reason, "a duplicate linkAccount must reject with an Error").toBeInstanceOf(
        Error,
      );
    }
  }
  const key = accountKey(account);
  expectRow(await ctx.a.getUserByAccount(key), user, "getUserByAccount after the duplicate link");
  if (ctx.db.account) {
    expectRow(await ctx.db.account(key), account, "db.account(key) after the duplicate link");
  }
  if (ctx.has("unlinkAccount")) {
    // A second row would survive a single unlink.
    await ctx.a.unlinkAccount(key);
    expectNull(
      await ctx.a.getUserByAccount(key),
      "getUserByAccount after one unlinkAccount (a duplicate row was left behind)",
    );
  }
}

export const concurrency: Group = {
  title: "uniqueness and concurrency",
  cases: [
    {
      name: "50 simultaneous useVerificationToken calls return the token exactly once",
      uses: ["createVerificationToken", "useVerificationToken"],
      async run(ctx) {
        const token = ctx.newVerificationToken();
        await ctx.a.createVerificationToken(token);
        const results = await Promise.allSettled(
          Array.from({ length: 50 }, () => ctx.a.useVerificationToken(tokenKey(token))),
        );
        const rejected = results.filter((r) => r.status === "rejected");
        expect(rejected, "useVerificationToken must not reject when racing").toEqual([]);
        const values = results.map((r) => (r.status === "fulfilled" ? r.value : undefined));
        const winners = values.filter((v) => v !== null && v !== undefined);
        expect(
          winners.length,
          `exactly one of 50 racing useVerificationToken calls must get the token; ${winners.length} did`,
        ).toBe(1);
        expectRow(winners[0], token, "the token returned by the winning call");
        const undefinedCount = values.filter((v) => v === undefined).length;
        expect(undefinedCount, "losing useVerificationToken calls must return null").toBe(0);
      },
    },
    {
      name: "linking an already linked provider account rejects or keeps a single account",
      uses: ["createUser", "linkAccount", "getUserByAccount"],
      async run(ctx) {
        const user = await ctx.createUser();
        const account = ctx.newAccount(user.id);
        await ctx.a.linkAccount(account);
        const results = await Promise.allSettled([ctx.a.linkAccount({ ...account })]);
        await expectSingleAccount(ctx, results, user, account);
      },
    },
    {
      name: "two simultaneous linkAccount calls for one provider account keep a single account",
      uses: ["createUser", "linkAccount", "getUserByAccount"],
      async run(ctx) {
        const user = await ctx.createUser();
        const account = ctx.newAccount(user.id);
        const results = await Promise.allSettled([
          ctx.a.linkAccount(account),
          ctx.a.linkAccount({ ...account }),
        ]);
        const linked = results.filter((r) => r.status === "fulfilled").length;
        expect(linked, "at least one of the two linkAccount calls must succeed").toBeGreaterThan(0);
        await expectSingleAccount(ctx, results, user, account);
      },
    },
  ],
};
