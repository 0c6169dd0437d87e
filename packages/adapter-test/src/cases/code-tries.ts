import { expect } from "vitest";
import { expectNull, expectRow, type Group, tokenKey } from "../context.js";

const MAX = 5;

/** The numbers among settled calls, sorted; fails on a rejection or on anything but a number or null. */
function counts(results: PromiseSettledResult<number | null>[], where: string): number[] {
  const rejected = results.filter((r) => r.status === "rejected");
  expect(rejected, `${where}: countVerificationTokenTry must not reject when racing`).toEqual([]);
  const values = results.map((r) => (r.status === "fulfilled" ? r.value : undefined));
  for (const value of values) {
    expect(
      value === null || (typeof value === "number" && Number.isInteger(value)),
      `${where}: countVerificationTokenTry must return a whole number or null, got ${String(value)}`,
    ).toBe(true);
  }
  return values.filter((v): v is number => typeof v === "number").sort((a, b) => a - b);
}

export const codeTries: Group = {
  title: "sign-in code tries (countVerificationTokenTry)",
  cases: [
    {
      name: "countVerificationTokenTry counts 1 to max, then null; null for an unknown or used token",
      uses: ["createVerificationToken", "useVerificationToken", "countVerificationTokenTry"],
      async run(ctx) {
        const token = ctx.newVerificationToken();
        await ctx.a.createVerificationToken(token);
        const key = tokenKey(token);
        const seen: (number | null)[] = [];
        for (let i = 0; i < MAX + 2; i++)
          seen.push(await ctx.a.countVerificationTokenTry(key, MAX));
        expect(seen, `${MAX + 2} tries one after the other, with max ${MAX}`).toEqual([
          1,
          2,
          3,
          4,
          5,
          null,
          null,
        ]);
        expectNull(
          await ctx.a.countVerificationTokenTry(
            { identifier: token.identifier, token: ctx.unique() },
            MAX,
          ),
          "countVerificationTokenTry(unknown token)",
        );
        // Counting tries leaves the token itself unchanged and usable once.
        expectRow(await ctx.a.useVerificationToken(key), token, "useVerificationToken after tries");
        expectNull(
          await ctx.a.countVerificationTokenTry(key, MAX),
          "countVerificationTokenTry after useVerificationToken",
        );
      },
    },
    {
      name: "50 simultaneous countVerificationTokenTry calls: exactly max get a count, each a different one",
      uses: ["createVerificationToken", "countVerificationTokenTry"],
      async run(ctx) {
        const token = ctx.newVerificationToken();
        await ctx.a.createVerificationToken(token);
        const results = await Promise.allSettled(
          Array.from({ length: 50 }, () => ctx.a.countVerificationTokenTry(tokenKey(token), MAX)),
        );
        const got = counts(results, "50 racing calls");
        // A count handed out twice, or a sixth one, is a guess checked past the limit.
        expect(got, `the counts handed out to 50 racing calls with max ${MAX}`).toEqual([
          1, 2, 3, 4, 5,
        ]);
        expectNull(
          await ctx.a.countVerificationTokenTry(tokenKey(token), MAX),
          "countVerificationTokenTry after the race",
        );
      },
    },
    {
      name: "each token's tries are its own, and a higher max allows more",
      uses: ["createVerificationToken", "countVerificationTokenTry"],
      async run(ctx) {
        const first = ctx.newVerificationToken();
        const second = { ...ctx.newVerificationToken(), identifier: first.identifier };
        await ctx.a.createVerificationToken(first);
        await ctx.a.createVerificationToken(second);
        for (let i = 1; i <= 3; i++) {
          expect(await ctx.a.countVerificationTokenTry(tokenKey(first), 3)).toBe(i);
        }
        expectNull(await ctx.a.countVerificationTokenTry(tokenKey(first), 3), "a 4th try of 3");
        expect(
          await ctx.a.countVerificationTokenTry(tokenKey(second), 3),
          "the first try of another token of the same identifier",
        ).toBe(1);
        expect(
          await ctx.a.countVerificationTokenTry(tokenKey(first), 4),
          "a 4th try when max is 4",
        ).toBe(4);
      },
    },
  ],
};
