import { expect } from "vitest";
import { expectDate, expectNull, type Group, tokenKey } from "../context.js";

export const dates: Group = {
  title: "dates",
  cases: [
    {
      name: "emailVerified comes back as the same Date from getUser and getUserByEmail",
      uses: ["createUser", "getUser", "getUserByEmail"],
      async run(ctx) {
        const input = ctx.newUser();
        const user = await ctx.a.createUser(input);
        const verified = input.emailVerified as Date;
        expectDate(user.emailVerified, verified, "createUser(...).emailVerified");
        expectDate((await ctx.a.getUser(user.id))?.emailVerified, verified, "getUser");
        const byEmail = await ctx.a.getUserByEmail(user.email);
        expectDate(byEmail?.emailVerified, verified, "getUserByEmail(...).emailVerified");
      },
    },
    {
      name: "emailVerified null stays null",
      uses: ["createUser", "getUser"],
      async run(ctx) {
        const user = await ctx.createUser({ emailVerified: null });
        const found = await ctx.a.getUser(user.id);
        expect(found, "getUser(id)").toBeTypeOf("object");
        expectNull(found?.emailVerified, "getUser(id).emailVerified of an unverified user");
      },
    },
    {
      name: "session.expires and user.emailVerified come back as Dates from getSessionAndUser",
      uses: ["createUser", "createSession", "getSessionAndUser"],
      async run(ctx) {
        const input = ctx.newUser();
        const user = await ctx.a.createUser(input);
        const session = ctx.newSession(user.id);
        const created = await ctx.a.createSession(session);
        expectDate(created.expires, session.expires, "createSession(...).expires");
        const found = await ctx.a.getSessionAndUser(session.sessionToken);
        expectDate(
          found?.session.expires,
          session.expires,
          "getSessionAndUser(...).session.expires",
        );
        expectDate(
          found?.user.emailVerified,
          input.emailVerified as Date,
          "getSessionAndUser(...).user.emailVerified",
        );
      },
    },
    {
      name: "verification token expires comes back as the same Date from useVerificationToken",
      uses: ["createVerificationToken", "useVerificationToken"],
      async run(ctx) {
        const token = ctx.newVerificationToken();
        await ctx.a.createVerificationToken(token);
        const used = await ctx.a.useVerificationToken(tokenKey(token));
        expectDate(used?.expires, token.expires, "useVerificationToken(...).expires");
      },
    },
  ],
};
