import { expect } from "vitest";
import { accountKey, expectNull, expectRow, type Group } from "../context.js";

export const cascade: Group = {
  title: "deleting a user",
  cases: [
    {
      name: "deleteUser also deletes the user's sessions and accounts, and only those",
      uses: [
        "createUser",
        "linkAccount",
        "createSession",
        "deleteUser",
        "getUser",
        "getSessionAndUser",
        "getUserByAccount",
      ],
      async run(ctx) {
        const user = await ctx.createUser();
        const account = ctx.newAccount(user.id);
        const session = ctx.newSession(user.id);
        await ctx.a.linkAccount(account);
        await ctx.a.createSession(session);
        const other = await ctx.createUser();
        const otherAccount = ctx.newAccount(other.id);
        const otherSession = ctx.newSession(other.id);
        await ctx.a.linkAccount(otherAccount);
        await ctx.a.createSession(otherSession);

        await ctx.a.deleteUser(user.id);
        expectNull(await ctx.a.getUser(user.id), "getUser(id) after deleteUser");
        expectNull(
          await ctx.a.getSessionAndUser(session.sessionToken),
          "getSessionAndUser(token of the deleted user's session)",
        );
        expectNull(
          await ctx.a.getUserByAccount(accountKey(account)),
          "getUserByAccount(key of the deleted user's account)",
        );
        if (ctx.db.session) {
          const row = await ctx.db.session(session.sessionToken);
          expect(row, "db.session(token) of the deleted user's session").toBeFalsy();
        }
        if (ctx.db.account) {
          const row = await ctx.db.account(accountKey(account));
          expect(row, "db.account(key) of the deleted user's account").toBeFalsy();
        }
        if (ctx.has("getAccount")) {
          const row = await ctx.a.getAccount(account.providerAccountId, account.provider);
          expectNull(row, "getAccount of the deleted user's account");
        }

        // Rows left behind would reappear if a user with the same id came back.
        const again = await ctx.a.createUser(ctx.newUser({ id: user.id }));
        if (again.id === user.id) {
          expectNull(
            await ctx.a.getSessionAndUser(session.sessionToken),
            "getSessionAndUser(old token) after re-creating a user with the deleted user's id",
          );
          expectNull(
            await ctx.a.getUserByAccount(accountKey(account)),
            "getUserByAccount(old key) after re-creating a user with the deleted user's id",
          );
        }

        const kept = await ctx.a.getSessionAndUser(otherSession.sessionToken);
        expectRow(kept?.session, otherSession, "another user's session after deleteUser");
        const owner = await ctx.a.getUserByAccount(accountKey(otherAccount));
        expectRow(owner, other, "getUserByAccount(another user's account) after deleteUser");
      },
    },
    {
      name: "deleteUser also deletes the user's authenticators",
      uses: [
        "createUser",
        "linkAccount",
        "createAuthenticator",
        "deleteUser",
        "getAuthenticator",
        "listAuthenticatorsByUserId",
      ],
      async run(ctx) {
        const user = await ctx.createUser();
        const authenticator = await ctx.createAuthenticator(user.id);
        const other = await ctx.createUser();
        const otherAuthenticator = await ctx.createAuthenticator(other.id);

        await ctx.a.deleteUser(user.id);
        expectNull(
          await ctx.a.getAuthenticator(authenticator.credentialID),
          "getAuthenticator(credentialID of the deleted user's authenticator)",
        );
        expect(
          await ctx.a.listAuthenticatorsByUserId(user.id),
          "listAuthenticatorsByUserId(deleted user)",
        ).toEqual([]);
        if (ctx.db.authenticator) {
          const row = await ctx.db.authenticator(authenticator.credentialID);
          expect(row, "db.authenticator(credentialID) of the deleted user").toBeFalsy();
        }
        expectRow(
          await ctx.a.getAuthenticator(otherAuthenticator.credentialID),
          otherAuthenticator,
          "getAuthenticator(another user's authenticator) after deleteUser",
        );
      },
    },
  ],
};
