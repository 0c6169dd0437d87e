/**
 * `updateAccount` and `lockAccount`, optional methods (see `optionalMethods`) that
 * `getAccessToken` uses to store refreshed provider tokens: the compare-and-swap on the stored
 * refresh token is what stores a rotated refresh token exactly once, and the lock what keeps
 * several processes from spending one refresh token at the same time.
 */

import { expect } from "vitest";
import { type Context, expectRow, type Group } from "../context.js";

const keyOf = (a: { provider: string; providerAccountId: string }) => ({
  provider: a.provider,
  providerAccountId: a.providerAccountId,
});

async function linked(ctx: Context) {
  const user = await ctx.createUser();
  const account = ctx.newAccount(user.id, { refresh_token: ctx.unique() });
  await ctx.a.linkAccount(account);
  return account;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const accountRefresh: Group = {
  title: "updating accounts and locking them for a token refresh",
  cases: [
    {
      name: "updateAccount merges the given fields and returns the updated account",
      uses: ["createUser", "linkAccount", "updateAccount", "getAccount"],
      async run(ctx) {
        const account = await linked(ctx);
        const patch = { access_token: ctx.unique(), expires_at: account.expires_at! + 60 };
        const updated = await ctx.a.updateAccount({ ...keyOf(account), ...patch });
        expectRow(updated, { ...account, ...patch }, "updateAccount(fields)");
        const stored = await ctx.a.getAccount(account.providerAccountId, account.provider);
        expectRow(stored, { ...account, ...patch }, "getAccount after updateAccount");
      },
    },
    {
      name: "updateAccount returns null for an unknown account",
      uses: ["updateAccount"],
      async run(ctx) {
        const missing = { provider: "gatehouse-test", providerAccountId: ctx.unique() };
        expect(await ctx.a.updateAccount({ ...missing, access_token: "x" })).toBeNull();
      },
    },
    {
      name: "updateAccount with ifRefreshToken writes only while the stored refresh token matches",
      uses: ["createUser", "linkAccount", "updateAccount", "getAccount"],
      async run(ctx) {
        const account = await linked(ctx);
        const key = keyOf(account);
        const rotated = ctx.unique();
        const first = await ctx.a.updateAccount(
          { ...key, access_token: "a2", refresh_token: rotated },
          { ifRefreshToken: account.refresh_token! },
        );
        expectRow(first, { ...account, access_token: "a2", refresh_token: rotated }, "the CAS");
        // The old refresh token no longer matches: an older set never overwrites the newer one.
        expect(
          await ctx.a.updateAccount(
            { ...key, access_token: "a3", refresh_token: ctx.unique() },
            { ifRefreshToken: account.refresh_token! },
          ),
          "updateAccount with a stale ifRefreshToken must return null",
        ).toBeNull();
        const stored = await ctx.a.getAccount(account.providerAccountId, account.provider);
        expectRow(stored, first!, "the account after a refused CAS");
        // `null` matches no stored token.
        expect(
          await ctx.a.updateAccount({ ...key, scope: "x" }, { ifRefreshToken: null }),
          "ifRefreshToken: null must not match a stored refresh token",
        ).toBeNull();
      },
    },
    {
      name: "updateAccount with ifRefreshToken: of two concurrent writers exactly one wins",
      uses: ["createUser", "linkAccount", "updateAccount", "getAccount"],
      async run(ctx) {
        const account = await linked(ctx);
        const key = keyOf(account);
        const sets = [ctx.unique(), ctx.unique(), ctx.unique(), ctx.unique()];
        const results = await Promise.all(
          sets.map((refresh_token) =>
            ctx.a.updateAccount(
              { ...key, refresh_token, access_token: refresh_token },
              { ifRefreshToken: account.refresh_token! },
            ),
          ),
        );
        const winners = results.filter((r) => r !== null);
        expect(winners, "exactly one compare-and-swap may succeed").toHaveLength(1);
        const stored = await ctx.a.getAccount(account.providerAccountId, account.provider);
        expect(stored?.refresh_token).toBe(winners[0]!.refresh_token);
      },
    },
    {
      name: "lockAccount is exclusive until released",
      uses: ["lockAccount"],
      async run(ctx) {
        const key = { provider: "gatehouse-test", providerAccountId: ctx.unique() };
        const release = await ctx.a.lockAccount(key, 10_000);
        expect(typeof release, "the first lockAccount must return a release function").toBe(
          "function",
        );
        expect(await ctx.a.lockAccount(key, 10_000), "a held lock must not be taken").toBeNull();
        // Another account's lock is independent.
        const other = await ctx.a.lockAccount({ ...key, providerAccountId: ctx.unique() }, 10_000);
        expect(typeof other).toBe("function");
        await release!();
        const again = await ctx.a.lockAccount(key, 10_000);
        expect(typeof again, "a released lock can be taken again").toBe("function");
        await again!();
        await other!();
      },
    },
    {
      name: "lockAccount: a lock expires by itself after ttlMs",
      uses: ["lockAccount"],
      async run(ctx) {
        const key = { provider: "gatehouse-test", providerAccountId: ctx.unique() };
        const stale = await ctx.a.lockAccount(key, 200);
        expect(typeof stale).toBe("function");
        await sleep(1_100);
        const next = await ctx.a.lockAccount(key, 10_000);
        expect(typeof next, "an expired lock must be free").toBe("function");
        // The stale holder's release must not free the new holder's lock.
        await stale!();
        expect(await ctx.a.lockAccount(key, 10_000)).toBeNull();
        await next!();
      },
    },
  ],
};
