import { expect } from "vitest";
import { expectNull, expectRow, type Group } from "../context.js";

const ids = (rows: readonly { credentialID: string }[]) => rows.map((r) => r.credentialID).sort();

export const authenticators: Group = {
  title: "authenticators (WebAuthn)",
  cases: [
    {
      name: "createAuthenticator stores the authenticator and returns it",
      uses: ["createUser", "linkAccount", "createAuthenticator"],
      async run(ctx) {
        const user = await ctx.createUser();
        const created = await ctx.createAuthenticator(user.id);
        if (ctx.db.authenticator) {
          const row = await ctx.db.authenticator(created.credentialID);
          expectRow(row, created, "db.authenticator(credentialID) after createAuthenticator");
        }
      },
    },
    {
      name: "createAuthenticator rejects a credential id that is already stored",
      uses: ["createUser", "linkAccount", "createAuthenticator"],
      async run(ctx) {
        const user = await ctx.createUser();
        const created = await ctx.createAuthenticator(user.id);
        await expect(
          ctx.a.createAuthenticator({ ...created, counter: 99 }),
          "createAuthenticator(duplicate credentialID) must reject",
        ).rejects.toBeInstanceOf(Error);
      },
    },
    {
      // An adapter that upserts here would let a registration take over someone's passkey.
      name: "createAuthenticator rejects another user's credential id and leaves it unchanged",
      uses: ["createUser", "linkAccount", "createAuthenticator", "getAuthenticator"],
      async run(ctx) {
        const owner = await ctx.createUser();
        const other = await ctx.createUser();
        const created = await ctx.createAuthenticator(owner.id);
        await expect(
          ctx.a.createAuthenticator({
            ...created,
            userId: other.id,
            credentialPublicKey: Buffer.from(ctx.unique()).toString("base64"),
            counter: 5,
          }),
          "createAuthenticator(credentialID held by another user) must reject",
        ).rejects.toBeInstanceOf(Error);
        const found = await ctx.a.getAuthenticator(created.credentialID);
        expectRow(found, created, "getAuthenticator after the refused duplicate");
        if (ctx.db.authenticator) {
          const row = await ctx.db.authenticator(created.credentialID);
          expectRow(row, created, "db.authenticator(credentialID) after the refused duplicate");
        }
      },
    },
    {
      name: "getAuthenticator returns the authenticator, and null for an unknown credential id",
      uses: ["createUser", "linkAccount", "createAuthenticator", "getAuthenticator"],
      async run(ctx) {
        const user = await ctx.createUser();
        const created = await ctx.createAuthenticator(user.id);
        const found = await ctx.a.getAuthenticator(created.credentialID);
        expectRow(found, created, "getAuthenticator(credentialID)");
        expectNull(await ctx.a.getAuthenticator(ctx.unique()), "getAuthenticator(unknown id)");
      },
    },
    {
      name: "listAuthenticatorsByUserId lists exactly the user's authenticators",
      uses: ["createUser", "linkAccount", "createAuthenticator", "listAuthenticatorsByUserId"],
      async run(ctx) {
        const user = await ctx.createUser();
        const other = await ctx.createUser();
        const mine = [
          await ctx.createAuthenticator(user.id),
          await ctx.createAuthenticator(user.id),
        ];
        const theirs = [await ctx.createAuthenticator(other.id)];
        const listed = await ctx.a.listAuthenticatorsByUserId(user.id);
        expect(Array.isArray(listed), "listAuthenticatorsByUserId must return an array").toBe(true);
        expect(ids(listed), "listAuthenticatorsByUserId(user)").toEqual(ids(mine));
        for (const row of listed) {
          const expected = mine.find((a) => a.credentialID === row.credentialID) ?? {};
          expectRow(row, expected, "listAuthenticatorsByUserId(user) entry");
        }
        const otherList = await ctx.a.listAuthenticatorsByUserId(other.id);
        expect(ids(otherList), "listAuthenticatorsByUserId(other user)").toEqual(ids(theirs));
      },
    },
    {
      name: "listAuthenticatorsByUserId returns [] for an unknown user",
      uses: ["listAuthenticatorsByUserId"],
      async run(ctx) {
        const listed = await ctx.a.listAuthenticatorsByUserId(ctx.id());
        expect(listed, "listAuthenticatorsByUserId(unknown user) must return []").toEqual([]);
      },
    },
    {
      name: "updateAuthenticatorCounter stores the new counter and keeps the other fields",
      uses: [
        "createUser",
        "linkAccount",
        "createAuthenticator",
        "updateAuthenticatorCounter",
        "getAuthenticator",
      ],
      async run(ctx) {
        const user = await ctx.createUser();
        const created = await ctx.createAuthenticator(user.id);
        const expected = { ...created, counter: 7 };
        const updated = await ctx.a.updateAuthenticatorCounter(created.credentialID, 7);
        expectRow(updated, expected, "updateAuthenticatorCounter's return value");
        const found = await ctx.a.getAuthenticator(created.credentialID);
        expectRow(found, expected, "getAuthenticator after updateAuthenticatorCounter");
        if (ctx.db.authenticator) {
          const row = await ctx.db.authenticator(created.credentialID);
          expectRow(
            row,
            expected,
            "db.authenticator(credentialID) after updateAuthenticatorCounter",
          );
        }
      },
    },
    {
      name: "updateAuthenticatorCounter rejects an unknown credential id",
      uses: ["updateAuthenticatorCounter"],
      async run(ctx) {
        await expect(
          ctx.a.updateAuthenticatorCounter(ctx.unique(), 1),
          "updateAuthenticatorCounter(unknown credentialID) must reject",
        ).rejects.toBeInstanceOf(Error);
      },
    },
  ],
};
