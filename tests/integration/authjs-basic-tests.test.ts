/**
 * Auth.js's adapter tests (`runBasicTests` of its private `utils` package, which is not
 * published), replayed from their documented expectations on every store: one user, session,
 * account and verification token walked through the contract in Auth.js's order, each answer
 * compared by deep equality (`toEqual`, which ignores `undefined` fields but not `null` ones) with
 * what was stored; a row `id` is allowed, as Auth.js allows it. A Gatehouse addition that answers
 * `null` for a field the caller never gave fails here as it would there.
 */
import { randomUUID } from "node:crypto";
import type {
  Adapter,
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  VerificationToken,
} from "@gatehousejs/core/adapters";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { expect, test } from "vitest";
import { allStores, type StoreKind, storeBlock } from "./stores.js";

const FILE = "authjs-basic-tests.test.ts";

const memory: StoreKind = {
  name: "memory adapter",
  open: async () => ({
    adapter: MemoryAdapter(),
    counts: async () => ({ users: 0, accounts: 0, sessions: 0 }),
    close: async () => {},
  }),
};

type Complete<T> = { [K in keyof T]-?: NonNullable<T[K]> };

/** `expected`, with the row id `actual` carries when it has one. */
const withId = <T extends object>(actual: unknown, expected: T): T => {
  const id = (actual as { id?: unknown } | null)?.id;
  return id === undefined ? expected : { ...expected, id };
};

const ONE_WEEK = 7 * 24 * 60 * 60 * 1000;

for (const kind of [memory, ...allStores]) {
  await storeBlock(FILE, kind, (store) => {
    const a = () => store().adapter as Complete<Adapter>;
    const user: AdapterUser = {
      id: randomUUID(),
      email: "fill@murray.com",
      image: "https://www.fillmurray.com/460/300",
      name: "Fill Murray",
      emailVerified: new Date(),
    };
    const expires = new Date(Date.now() + ONE_WEEK);
    expires.setMilliseconds(0);
    const session: AdapterSession = { sessionToken: randomUUID(), userId: user.id, expires };
    const account: AdapterAccount = {
      provider: "github",
      providerAccountId: randomUUID(),
      type: "oauth",
      userId: user.id,
      access_token: randomUUID(),
      expires_at: 2_592_000,
      id_token: randomUUID(),
      refresh_token: randomUUID(),
      token_type: "bearer",
      scope: "user",
      session_state: randomUUID(),
    };
    const accountKey = { provider: account.provider, providerAccountId: account.providerAccountId };

    test("the session methods exist", () => {
      for (const method of [
        "createUser",
        "getUser",
        "getUserByEmail",
        "getUserByAccount",
        "updateUser",
        "linkAccount",
        "createSession",
        "getSessionAndUser",
        "updateSession",
        "deleteSession",
      ] as const) {
        expect(a()[method], method).toBeTypeOf("function");
      }
    });

    test("createUser", async () => {
      const created = await a().createUser(user);
      expect(created).toEqual(withId(created, user));
      expect(await a().getUser(user.id)).toEqual(created);
    });

    test("getUser", async () => {
      expect(await a().getUser(randomUUID())).toBeNull();
      expect(await a().getUser(user.id)).toEqual(user);
    });

    test("getUserByEmail", async () => {
      expect(await a().getUserByEmail("non-existent-email")).toBeNull();
      expect(await a().getUserByEmail(user.email)).toEqual(user);
    });

    test("createSession", async () => {
      const created = await a().createSession(session);
      expect(created).toEqual(withId(created, session));
    });

    test("getSessionAndUser", async () => {
      expect(await a().getSessionAndUser("invalid-token")).toBeNull();
      const found = await a().getSessionAndUser(session.sessionToken);
      expect(found?.user).toEqual(user);
      expect(found?.session).toEqual(withId(found?.session, session));
    });

    test("updateUser", async () => {
      const updated = await a().updateUser({ id: user.id, name: "Updated Name" });
      user.name = "Updated Name";
      expect(updated).toEqual(user);
      expect(await a().getUser(user.id)).toEqual(user);
    });

    test("updateSession", async () => {
      const later = new Date(expires.getTime() + 60 * 60 * 1000);
      expect(later).not.toEqual(session.expires);
      const updated = await a().updateSession({
        sessionToken: session.sessionToken,
        expires: later,
      });
      session.expires = later;
      if (updated) expect(updated).toEqual(withId(updated, session));
      const found = await a().getSessionAndUser(session.sessionToken);
      expect(found?.session).toEqual(withId(found?.session, session));
    });

    test("linkAccount", async () => {
      const linked = await a().linkAccount(account);
      if (linked) expect(linked).toEqual(withId(linked, account));
      const stored = await a().getAccount(account.providerAccountId, account.provider);
      expect(stored).toEqual(withId(stored, account));
    });

    test("getUserByAccount", async () => {
      expect(
        await a().getUserByAccount({ provider: "invalid-provider", providerAccountId: "x" }),
      ).toBeNull();
      expect(await a().getUserByAccount(accountKey)).toEqual(user);
    });

    test("deleteSession", async () => {
      const deleted = await a().deleteSession(session.sessionToken);
      if (deleted) expect(deleted).toEqual(withId(deleted, session));
      expect(await a().getSessionAndUser(session.sessionToken)).toBeNull();
    });

    const token: VerificationToken = {
      identifier: "info@example.com",
      token: randomUUID(),
      expires: new Date(Date.now() + 15 * 60 * 1000),
    };

    test("the verification token methods exist", () => {
      expect(a().createVerificationToken).toBeTypeOf("function");
      expect(a().useVerificationToken).toBeTypeOf("function");
    });

    test("createVerificationToken", async () => {
      const created = await a().createVerificationToken(token);
      if (created) expect(created).toEqual(token);
    });

    test("useVerificationToken", async () => {
      const key = { identifier: token.identifier, token: token.token };
      expect(
        await a().useVerificationToken({ ...key, identifier: "wrong@example.com" }),
      ).toBeNull();
      expect(await a().useVerificationToken(key)).toEqual(token);
      expect(await a().useVerificationToken(key)).toBeNull();
    });

    test("the future methods exist", () => {
      expect(a().unlinkAccount).toBeTypeOf("function");
      expect(a().deleteUser).toBeTypeOf("function");
    });

    test("unlinkAccount", async () => {
      const unlinked = await a().unlinkAccount(accountKey);
      if (unlinked) expect(unlinked).toEqual(withId(unlinked, account));
      expect(await a().getAccount(account.providerAccountId, account.provider)).toBeNull();
      expect(await a().getUserByAccount(accountKey)).toBeNull();
    });

    test("deleteUser", async () => {
      const other = { ...session, sessionToken: randomUUID() };
      await a().createSession(other);
      await a().linkAccount({ ...account, providerAccountId: randomUUID() });
      const deleted = await a().deleteUser(user.id);
      if (deleted) expect(deleted).toEqual(user);
      expect(await a().getUser(user.id)).toBeNull();
      expect(await a().getSessionAndUser(other.sessionToken)).toBeNull();
    });

    // The WebAuthn tests, with a user of their own.
    const owner: AdapterUser = {
      id: randomUUID(),
      email: "passkey@example.com",
      name: "Passkey Owner",
      image: null,
      emailVerified: null,
    };
    const credentialID = randomUUID();
    const passkeyAccount: AdapterAccount = {
      provider: "webauthn",
      providerAccountId: credentialID,
      type: "webauthn",
      userId: owner.id,
    };
    const authenticator: AdapterAuthenticator = {
      credentialID,
      userId: owner.id,
      providerAccountId: credentialID,
      credentialPublicKey: "pk",
      counter: 1,
      credentialDeviceType: "singleDevice",
      credentialBackedUp: false,
      transports: "internal",
    };

    test("getAccount", async () => {
      await a().createUser(owner);
      await a().linkAccount(passkeyAccount);
      expect(await a().getAccount(credentialID, "github")).toBeNull();
      expect(await a().getAccount(randomUUID(), "webauthn")).toBeNull();
      const found = await a().getAccount(credentialID, "webauthn");
      expect(found).toEqual(withId(found, passkeyAccount));
    });

    test("createAuthenticator", async () => {
      expect(await a().createAuthenticator(authenticator)).toEqual(authenticator);
    });

    test("getAuthenticator", async () => {
      expect(await a().getAuthenticator(randomUUID())).toBeNull();
      expect(await a().getAuthenticator(credentialID)).toEqual(authenticator);
    });

    test("listAuthenticatorsByUserId", async () => {
      expect(await a().listAuthenticatorsByUserId(randomUUID())).toEqual([]);
      expect(await a().listAuthenticatorsByUserId(owner.id)).toEqual([authenticator]);
    });

    test("updateAuthenticatorCounter", async () => {
      await expect(a().updateAuthenticatorCounter(randomUUID(), 2)).rejects.toThrow();
      expect(await a().updateAuthenticatorCounter(credentialID, 2)).toEqual({
        ...authenticator,
        counter: 2,
      });
    });
  });
}
