import { expect } from "vitest";
import { expectNull, expectRow, expectRowOrNothing, type Group, tokenKey } from "../context.js";

export const verificationTokens: Group = {
  title: "verification tokens",
  cases: [
    {
      name: "createVerificationToken stores the token",
      uses: ["createVerificationToken"],
      async run(ctx) {
        const token = ctx.newVerificationToken();
        const created = await ctx.a.createVerificationToken(token);
        expectRowOrNothing(created, token, "createVerificationToken's return value");
        if (ctx.db.verificationToken) {
          const row = await ctx.db.verificationToken(tokenKey(token));
          expectRow(row, token, "db.verificationToken(key) after createVerificationToken");
        }
      },
    },
    {
      name: "useVerificationToken returns the token once, then null",
      uses: ["createVerificationToken", "useVerificationToken"],
      async run(ctx) {
        const token = ctx.newVerificationToken();
        await ctx.a.createVerificationToken(token);
        const key = tokenKey(token);
        expectRow(await ctx.a.useVerificationToken(key), token, "first useVerificationToken");
        expectNull(
          await ctx.a.useVerificationToken(key),
          "second useVerificationToken (single use)",
        );
        if (ctx.db.verificationToken) {
          const row = await ctx.db.verificationToken(key);
          expect(row, "db.verificationToken(key) after useVerificationToken").toBeFalsy();
        }
      },
    },
    {
      name: "useVerificationToken needs both the identifier and the token to match",
      uses: ["createVerificationToken", "useVerificationToken"],
      async run(ctx) {
        const token = ctx.newVerificationToken();
        await ctx.a.createVerificationToken(token);
        const { identifier } = token;
        const otherIdentifier = `other-${ctx.unique()}@example.com`;
        expectNull(
          await ctx.a.useVerificationToken({ identifier: otherIdentifier, token: token.token }),
          "useVerificationToken(wrong identifier, right token)",
        );
        expectNull(
          await ctx.a.useVerificationToken({ identifier, token: ctx.unique() }),
          "useVerificationToken(right identifier, wrong token)",
        );
        // Failed attempts must not consume the token.
        expectRow(
          await ctx.a.useVerificationToken({ identifier, token: token.token }),
          token,
          "useVerificationToken(right pair) after failed attempts",
        );
      },
    },
    {
      name: "one identifier can hold several tokens, each used on its own",
      uses: ["createVerificationToken", "useVerificationToken"],
      async run(ctx) {
        const first = ctx.newVerificationToken();
        const second = { ...ctx.newVerificationToken(), identifier: first.identifier };
        await ctx.a.createVerificationToken(first);
        await ctx.a.createVerificationToken(second);
        expectRow(
          await ctx.a.useVerificationToken(tokenKey(first)),
          first,
          "useVerificationToken(first)",
        );
        expectRow(
          await ctx.a.useVerificationToken(tokenKey(second)),
          second,
          "useVerificationToken(second)",
        );
      },
    },
  ],
};
