import { expect } from "vitest";
import { accountKey, expectNull, expectRow, expectRowOrNothing, type Group } from "../context.js";

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
    {
      name: "deleteAuthenticator returns the deleted authenticator, which is then gone",
      uses: [
        "createUser",
        "linkAccount",
        "createAuthenticator",
        "deleteAuthenticator",
        "getAuthenticator",
        "listAuthenticatorsByUserId",
      ],
      async run(ctx) {
        const user = await ctx.createUser();
        const created = await ctx.createAuthenticator(user.id);
        const deleted = await ctx.a.deleteAuthenticator(created.credentialID);
        expectRow(deleted, created, "deleteAuthenticator's return value");
        expectNull(
          await ctx.a.getAuthenticator(created.credentialID),
          "getAuthenticator after deleteAuthenticator",
        );
        const listed = await ctx.a.listAuthenticatorsByUserId(user.id);
        expect(listed, "listAuthenticatorsByUserId after deleting the user's only passkey").toEqual(
          [],
        );
        if (ctx.db.authenticator) {
          const row = await ctx.db.authenticator(created.credentialID);
          expect(
            row ?? null,
            "db.authenticator(credentialID) after deleteAuthenticator must find no row",
          ).toBeNull();
        }
      },
    },
    {
      name: "deleteAuthenticator leaves the user's other passkeys and other users' passkeys alone",
      uses: [
        "createUser",
        "linkAccount",
        "createAuthenticator",
        "updateAuthenticatorCounter",
        "deleteAuthenticator",
        "getAuthenticator",
        "listAuthenticatorsByUserId",
      ],
      async run(ctx) {
        const user = await ctx.createUser();
        const other = await ctx.createUser();
        const removed = await ctx.createAuthenticator(user.id);
        const kept = await ctx.createAuthenticator(user.id);
        // A counter that is not the fixture's, so that a passkey re-created by the delete shows.
        const theirs = await ctx.a.updateAuthenticatorCounter(
          (await ctx.createAuthenticator(other.id)).credentialID,
          3,
        );
        expectRow(
          await ctx.a.deleteAuthenticator(removed.credentialID),
          removed,
          "deleteAuthenticator's return value",
        );
        for (const [row, whose] of [
          [kept, "the user's other passkey"],
          [theirs, "another user's passkey"],
        ] as const) {
          const found = await ctx.a.getAuthenticator(row.credentialID);
          expectRow(found, row, `getAuthenticator(${whose}) after deleteAuthenticator`);
          if (ctx.db.authenticator) {
            const stored = await ctx.db.authenticator(row.credentialID);
            expectRow(stored, row, `db.authenticator(${whose}) after deleteAuthenticator`);
          }
        }
        const listed = await ctx.a.listAuthenticatorsByUserId(user.id);
        expect(ids(listed), "listAuthenticatorsByUserId(user) after deleteAuthenticator").toEqual(
          ids([kept]),
        );
        const otherList = await ctx.a.listAuthenticatorsByUserId(other.id);
        expect(
          ids(otherList),
          "listAuthenticatorsByUserId(other user) after deleteAuthenticator",
        ).toEqual(ids([theirs]));
      },
    },
    {
      name: "deleteAuthenticator returns null for an unknown credential id",
      uses: ["deleteAuthenticator"],
      async run(ctx) {
        expectNull(
          await ctx.a.deleteAuthenticator(ctx.unique()),
          "deleteAuthenticator(unknown credentialID)",
        );
      },
    },
    {
      name: "deleteAuthenticator returns null the second time",
      uses: [
        "createUser",
        "linkAccount",
        "createAuthenticator",
        "deleteAuthenticator",
        "getAuthenticator",
      ],
      async run(ctx) {
        const user = await ctx.createUser();
        const created = await ctx.createAuthenticator(user.id);
        const first = await ctx.a.deleteAuthenticator(created.credentialID);
        expectRow(first, created, "the first deleteAuthenticator");
        expectNull(
          await ctx.a.deleteAuthenticator(created.credentialID),
          "the second deleteAuthenticator of one credential id",
        );
        expectNull(
          await ctx.a.getAuthenticator(created.credentialID),
          "getAuthenticator after two deleteAuthenticator calls",
        );
      },
    },
    {
      // The contract leaves the account to unlinkAccount: Gatehouse calls both.
      name: "deleteAuthenticator leaves the passkey's webauthn account to unlinkAccount",
      uses: [
        "createUser",
        "linkAccount",
        "createAuthenticator",
        "deleteAuthenticator",
        "getAccount",
        "unlinkAccount",
      ],
      async run(ctx) {
        const user = await ctx.createUser();
        const created = await ctx.createAuthenticator(user.id);
        const key = accountKey({ provider: "webauthn", providerAccountId: created.credentialID });
        await ctx.a.deleteAuthenticator(created.credentialID);
        const account = await ctx.a.getAccount(key.providerAccountId, key.provider);
        expectRow(
          account,
          { ...key, userId: user.id, type: "webauthn" },
          "getAccount(the passkey's webauthn account) after deleteAuthenticator",
        );
        const unlinked = await ctx.a.unlinkAccount(key);
        expectRowOrNothing(unlinked, key, "unlinkAccount(the passkey's webauthn account)");
        expectNull(
          await ctx.a.getAccount(key.providerAccountId, key.provider),
          "getAccount after deleteAuthenticator and unlinkAccount",
        );
      },
    },
  ],
};
