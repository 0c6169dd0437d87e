/**
 * An email link that finds a user whose address nobody proved (docs/security.md, "Linking and
 * sign-up rules"): with an adapter that can list a user's accounts, the link adopts the user
 * exactly when it holds no other way in, whatever providers are configured; without one, it
 * keeps the conservative rule (refused whenever an OAuth provider is configured).
 *
 * Users are set up the way they arise: invited by the app through the adapter, imported from
 * Auth.js with only an email account, signed up through a real OpenID provider that does not
 * vouch for the address, or holding a passkey.
 */
import type { Adapter, AdapterAccount } from "@gatehousejs/core/adapters";
import type { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { Jar, ORIGIN } from "./helpers.js";
import { emailWorld } from "./support/email-world.js";
import { expectOneFailure, loggedFailures } from "./support/failures.js";
import {
  expectNoSessionCookie,
  sessionOf,
  signInError,
  signInThrough,
  twoIdps,
} from "./support/oauth-flow.js";
import { defaultClaims, type OidcServer, startOidcProvider } from "./support/oidc-server.js";

const INVITED = "invited@example.com";

/** `quiet` signs in with quiet@example.com and says nothing about verifying it. */
function claims(account: string): Record<string, unknown> {
  if (account === "quiet") return { email: "quiet@example.com", name: "Quiet" };
  return defaultClaims(account);
}

let op: OidcServer;
beforeAll(async () => {
  op = await startOidcProvider({ claims });
});
afterAll(() => op.close());

interface SetupOptions {
  /** Configure the OAuth providers (default `true`). */
  oauth?: boolean;
  /** Change what Gatehouse sees of the memory adapter. */
  adapter?: (memory: ReturnType<typeof MemoryAdapter>) => Adapter;
}

function setup(options: SetupOptions = {}) {
  const world = emailWorld({
    providers: options.oauth === false ? [] : twoIdps(op),
    adapter: options.adapter,
  });
  /** A user the app created itself: the address given, not proven, no way in yet. */
  const invite = (address = INVITED) =>
    world.memory.createUser({ id: `invited-${address}`, email: address, emailVerified: null });
  return { ...world, invite };
}

/** The memory adapter as an adapter written for Auth.js sees it: no `listAccountsByUserId`. */
function withoutAccountListing(memory: ReturnType<typeof MemoryAdapter>): Adapter {
  const { listAccountsByUserId: _omitted, ...rest } = memory;
  return rest;
}

const as = (account: string) => ({ query: { login_hint: account } });

/** Clicks a link to INVITED and asserts it was refused: no session, nothing written, one warning. */
async function expectRefused(s: ReturnType<typeof setup>, userId: string) {
  const before = { user: s.memory.rows.user(userId), count: s.memory.rows.count() };
  const { response, jar } = await s.emailSignIn(INVITED);
  expect(response.status).toBe(302);
  expect(response.headers.get("location")).toBe(signInError("OAuthAccountNotLinked"));
  expectNoSessionCookie(response);
  expectOneFailure(s.logger, "OAuthAccountNotLinked", { level: "warn", text: /unverified/ });
  expect(await sessionOf(s.config, jar)).toBeNull();
  expect(s.memory.rows.user(userId)).toEqual(before.user);
  expect(s.memory.rows.user(userId)?.emailVerified).toBeNull();
  expect(s.memory.rows.count()).toEqual(before.count);
}

describe("with an adapter that lists a user's accounts, an OAuth provider configured", () => {
  test("an invited user (no account at all) signs in by link, and the link proves the address", async () => {
    const s = setup();
    const invited = await s.invite();
    const { response, jar } = await s.emailSignIn(INVITED);
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect((await sessionOf(s.config, jar))?.user?.email).toBe(INVITED);
    expect(s.memory.rows.user(invited.id)?.emailVerified).toBeInstanceOf(Date);
    expect(s.ownerOf("email", INVITED)).toBe(invited.id);
    expect(s.memory.rows.count()).toMatchObject({ users: 1, accounts: 1 });
    expect(loggedFailures(s.logger)).toEqual([]);
  });

  test("a user imported from Auth.js holding only this provider's email account signs in", async () => {
    const s = setup();
    const imported = await s.invite();
    await s.memory.linkAccount({
      userId: imported.id,
      type: "email",
      provider: "email",
      providerAccountId: INVITED,
    });
    const { response, jar } = await s.emailSignIn(INVITED);
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect((await sessionOf(s.config, jar))?.user?.email).toBe(INVITED);
    expect(s.memory.rows.user(imported.id)?.emailVerified).toBeInstanceOf(Date);
    expect(s.memory.rows.count()).toMatchObject({ users: 1, accounts: 1 });
  });

  test("a user holding an OAuth account whose provider did not vouch for the address is refused", async () => {
    const s = setup();
    await signInThrough(s.config, new Jar(), "idp", as("quiet"));
    const quiet = s.ownerOf("idp", "quiet")!;
    expect(s.memory.rows.user(quiet)?.emailVerified).toBeNull();
    const clicked = await s.emailSignIn("quiet@example.com");
    expect(clicked.response.headers.get("location")).toBe(signInError("OAuthAccountNotLinked"));
    expectNoSessionCookie(clicked.response);
    expect(await sessionOf(s.config, clicked.jar)).toBeNull();
    expect(s.memory.rows.user(quiet)?.emailVerified).toBeNull();
    expect(s.ownerOf("email", "quiet@example.com")).toBeUndefined();
  });

  type Other = Pick<AdapterAccount, "type" | "provider" | "providerAccountId">;
  const others: [string, Other][] = [
    ["an OAuth account", { type: "oidc", provider: "idp", providerAccountId: "someone-at-idp" }],
    [
      "an account of a provider the configuration no longer has",
      { type: "oauth", provider: "retired", providerAccountId: "someone-at-retired" },
    ],
    [
      "this provider's email account for another address",
      { type: "email", provider: "email", providerAccountId: "previous@example.com" },
    ],
    [
      "another email provider's account",
      { type: "email", provider: "other-email", providerAccountId: INVITED },
    ],
    [
      "an OAuth account under this provider's id (a provider that once had it)",
      { type: "oauth", provider: "email", providerAccountId: INVITED },
    ],
    [
      "a passkey account",
      { type: "webauthn", provider: "passkey", providerAccountId: "cred-account" },
    ],
  ];
  test.each(others)("a user holding %s is refused", async (_, account: Other) => {
    const s = setup();
    const user = await s.invite();
    await s.memory.linkAccount({ ...account, userId: user.id });
    await expectRefused(s, user.id);
  });

  test("a user holding an authenticator is refused, even with no account listed", async () => {
    const s = setup();
    const user = await s.invite();
    await s.memory.createAuthenticator({
      credentialID: "cred-1",
      providerAccountId: "cred-1",
      credentialPublicKey: "AA",
      counter: 0,
      credentialBackedUp: false,
      credentialDeviceType: "singleDevice",
      userId: user.id,
    });
    await expectRefused(s, user.id);
  });

  test("a listing that fails adopts nobody", async () => {
    const s = setup({
      adapter: (memory) => ({
        ...memory,
        listAccountsByUserId: async () => {
          throw new Error("database unavailable");
        },
      }),
    });
    const invited = await s.invite();
    const { response, jar } = await s.emailSignIn(INVITED);
    expect(response.headers.get("location")).not.toBe(ORIGIN);
    expectNoSessionCookie(response);
    expect(await sessionOf(s.config, jar)).toBeNull();
    expect(s.memory.rows.user(invited.id)?.emailVerified).toBeNull();
    expect(loggedFailures(s.logger).map((f) => f.type)).toEqual(["AdapterError"]);
  });
});

describe("without an OAuth provider configured", () => {
  test("an invited user signs in by link, as before", async () => {
    const s = setup({ oauth: false });
    const invited = await s.invite();
    const { response, jar } = await s.emailSignIn(INVITED);
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect((await sessionOf(s.config, jar))?.user?.email).toBe(INVITED);
    expect(s.memory.rows.user(invited.id)?.emailVerified).toBeInstanceOf(Date);
  });
});

describe("with an adapter that cannot list a user's accounts (written for Auth.js)", () => {
  test("an invited user is refused while an OAuth provider is configured (the old rule)", async () => {
    const s = setup({ adapter: withoutAccountListing });
    const invited = await s.invite();
    await expectRefused(s, invited.id);
  });

  test("an invited user signs in when no OAuth provider is configured", async () => {
    const s = setup({ oauth: false, adapter: withoutAccountListing });
    const invited = await s.invite();
    const { response, jar } = await s.emailSignIn(INVITED);
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect((await sessionOf(s.config, jar))?.user?.email).toBe(INVITED);
    expect(s.memory.rows.user(invited.id)?.emailVerified).toBeInstanceOf(Date);
  });

  test("a user holding a passkey is still refused when no OAuth provider is configured", async () => {
    const s = setup({ oauth: false, adapter: withoutAccountListing });
    const user = await s.invite();
    await s.memory.createAuthenticator({
      credentialID: "cred-1",
      providerAccountId: "cred-1",
      credentialPublicKey: "AA",
      counter: 0,
      credentialBackedUp: false,
      credentialDeviceType: "singleDevice",
      userId: user.id,
    });
    await expectRefused(s, user.id);
  });
});

describe("signed in as the unverified user", () => {
  test("the link proves the address even though the user holds an OAuth account", async () => {
    const s = setup();
    const jar = new Jar();
    await signInThrough(s.config, jar, "idp", as("quiet"));
    const quiet = s.ownerOf("idp", "quiet")!;
    const { response } = await s.emailSignIn("quiet@example.com", jar);
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(s.memory.rows.user(quiet)?.emailVerified).toBeInstanceOf(Date);
    expect(s.ownerOf("email", "quiet@example.com")).toBe(quiet);
  });
});
