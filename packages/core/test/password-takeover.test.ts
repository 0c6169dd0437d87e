/**
 * Pre-account takeover, written as the attacker (docs/security.md, "Linking and sign-up rules"):
 * someone signs up with a password and an address they do not own, before its owner ever uses the
 * site. Whatever way the owner later comes in (OAuth with a verified email, an email link, a
 * passkey), the attacker's password never shares an account with them: the owner is kept out of
 * the attacker's user, or takes it over with the attacker's password voided and sessions ended.
 */
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import Credentials from "@gatehousejs/core/providers/credentials";
import Email from "@gatehousejs/core/providers/email";
import Passkey from "@gatehousejs/core/providers/passkey";
import { MemoryRevocationStore } from "@gatehousejs/core/revocation/memory";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { Jar, ORIGIN, send } from "./helpers.js";
import { OTHER_PASSWORD, PASSWORD, passwordWorld, signInErrorUrl } from "./password-world.js";
import { SoftAuthenticator } from "./support/authenticator.js";
import { followLink } from "./support/email-link.js";
import {
  expectNoSessionCookie,
  signInError,
  signInThrough,
  twoIdps,
} from "./support/oauth-flow.js";
import { DEFAULT_ACCOUNT, type OidcServer, startOidcProvider } from "./support/oidc-server.js";

/** The address the OpenID provider vouches for (`email_verified: true`). */
const VICTIM = `${DEFAULT_ACCOUNT}@example.com`;
const WRONG = signInErrorUrl("CredentialsSignin", "credentials");

let op: OidcServer;
beforeAll(async () => {
  op = await startOidcProvider();
});
afterAll(() => op.close());

describe("the owner signs in with OAuth, the provider vouching for the address", () => {
  test("with a Credentials provider and no way to end sessions, is refused, even with allowDangerousEmailAccountLinking", async () => {
    // Someone may be signed in through the app's own password check, which Gatehouse cannot
    // see nor end: the squatted user is not adopted.
    const w = passwordWorld({
      providers: [
        ...twoIdps(op, { allowDangerousEmailAccountLinking: true }),
        Credentials({ credentials: { username: {} }, authorize: () => null }),
      ],
      config: { session: { strategy: "jwt" } },
    });
    const attacker = new Jar();
    await w.signUp(attacker, VICTIM, PASSWORD);
    const squatted = (await w.adapter.getUserByEmail(VICTIM))!;

    const victim = new Jar();
    const response = await signInThrough(w.config, victim, "idp2");
    expect(response.headers.get("location")).toBe(signInError("OAuthAccountNotLinked"));
    expectNoSessionCookie(response);
    expect(await w.signedInAs(victim)).toBeNull();
    // The attacker's user gained no account, and its address is no more proven than before.
    expect(await w.adapter.listAccountsByUserId(squatted.id)).toHaveLength(1);
    expect((await w.adapter.getUser(squatted.id))!.emailVerified).toBeNull();
    // The attacker's password still opens nothing.
    expect((await w.signIn(attacker, VICTIM, PASSWORD)).headers.get("location")).toBe(
      signInErrorUrl("EmailNotVerified"),
    );
    // Such a configuration is warned at startup (password-sessions-not-ended): no proof of the
    // address can adopt the user while a session nobody can end may exist.
    expect(w.logger.warn).toHaveBeenCalledWith("password-sessions-not-ended", expect.any(Error));
  });
});

describe("the owner signs in with OAuth: the squatted user is taken over", () => {
  test("takes the squatted user over: the attacker's password is void and its name gone", async () => {
    const w = passwordWorld({ providers: twoIdps(op) });
    await w.signUp(new Jar(), VICTIM, PASSWORD);
    const squatted = (await w.adapter.getUserByEmail(VICTIM))!;
    // A name the attacker chose (an app's sign-up fields may take one).
    await w.adapter.updateUser({ id: squatted.id, name: "Attacker's pick" });

    const victim = new Jar();
    const response = await signInThrough(w.config, victim, "idp2");
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(await w.signedInAs(victim)).toBe(VICTIM);
    const owner = (await w.adapter.getUserByEmail(VICTIM))!;
    expect(owner.id).toBe(squatted.id);
    expect(owner.emailVerified).toBeInstanceOf(Date);
    expect(owner.name).toBe(`User ${DEFAULT_ACCOUNT}`);
    const accounts = await w.adapter.listAccountsByUserId(owner.id);
    expect(accounts.map((a) => a.provider).sort()).toEqual(["idp2", "password"]);
    // The pending password was voided, and it opens nothing.
    expect((await w.account(VICTIM))!.passwordHash).toBeNull();
    expect((await w.signIn(new Jar(), VICTIM, PASSWORD)).headers.get("location")).toBe(WRONG);
  });

  test("signs out whoever signed in with the unconfirmed password", async () => {
    const w = passwordWorld({
      providers: twoIdps(op),
      password: { requireEmailVerification: false },
      config: { session: { strategy: "database" } },
    });
    const attacker = new Jar();
    await w.signUp(attacker, VICTIM, PASSWORD);
    await w.signIn(attacker, VICTIM, PASSWORD);
    expect(await w.signedInAs(attacker)).toBe(VICTIM);

    const victim = new Jar();
    await signInThrough(w.config, victim, "idp2");
    expect(await w.signedInAs(victim)).toBe(VICTIM);
    expect(await w.signedInAs(attacker)).toBeNull();
    expect((await w.signIn(new Jar(), VICTIM, PASSWORD)).headers.get("location")).toBe(WRONG);
  });

  test("a confirmed password is a way in of its own: refused, nothing changes", async () => {
    const w = passwordWorld({ providers: twoIdps(op) });
    await w.verifiedUser(VICTIM);
    const user = (await w.adapter.getUserByEmail(VICTIM))!;
    await w.adapter.updateUser({ id: user.id, emailVerified: null });

    const response = await signInThrough(w.config, new Jar(), "idp2");
    expect(response.headers.get("location")).toBe(signInError("OAuthAccountNotLinked"));
    expectNoSessionCookie(response);
    expect(await w.adapter.listAccountsByUserId(user.id)).toHaveLength(1);
    expect((await w.adapter.getUser(user.id))!.emailVerified).toBeNull();
    expect((await w.account(VICTIM))!.passwordHash).not.toMatch(/^pending\$/);
    expect((await w.account(VICTIM))!.passwordHash).toBeTruthy();
  });

  test("a user that holds no account at all is refused, as in Auth.js", async () => {
    const w = passwordWorld({ providers: twoIdps(op) });
    const user = await w.adapter.createUser({
      id: "by-hand",
      email: VICTIM,
      emailVerified: null,
    });
    const response = await signInThrough(w.config, new Jar(), "idp2");
    expect(response.headers.get("location")).toBe(signInError("OAuthAccountNotLinked"));
    expect(await w.adapter.listAccountsByUserId(user.id)).toEqual([]);
  });

  test("a provider that does not vouch for the address adopts nothing", async () => {
    const unsure = await startOidcProvider({
      claims: (id) => ({ email: `${id}@example.com`, email_verified: false, name: id }),
    });
    try {
      const w = passwordWorld({ providers: twoIdps(unsure) });
      await w.signUp(new Jar(), VICTIM, PASSWORD);
      const squatted = (await w.adapter.getUserByEmail(VICTIM))!;
      const victim = new Jar();
      await signInThrough(w.config, victim, "idp2");
      // Without a proven claim the address is not stored on a new user either: no takeover.
      expect(await w.adapter.listAccountsByUserId(squatted.id)).toHaveLength(1);
      expect((await w.adapter.getUser(squatted.id))!.emailVerified).toBeNull();
      expect((await w.account(VICTIM))!.passwordHash).toMatch(/^pending\$/);
    } finally {
      await unsure.close();
    }
  });
});

describe("the owner signs in with an email link", () => {
  test("with an adapter that lists accounts, the link adopts the user: a pending password is no way in, and it is void", async () => {
    const mails: URL[] = [];
    const w = passwordWorld({
      providers: [Email({ sendVerificationRequest: ({ url }) => void mails.push(new URL(url)) })],
    });
    await w.signUp(new Jar(), VICTIM, PASSWORD);
    const victim = new Jar();
    const { csrfToken } = await import("./helpers.js");
    await send(w.config, victim, "/auth/signin/email", {
      form: { csrfToken: await csrfToken(w.config, victim), email: VICTIM },
    });
    const response = await followLink(w.config, victim, mails.at(-1)!);
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(await w.signedInAs(victim)).toBe(VICTIM);
    expect((await w.adapter.getUserByEmail(VICTIM))!.emailVerified).toBeInstanceOf(Date);
    // The attacker's password never opens the account the owner now holds.
    expect((await w.signIn(new Jar(), VICTIM, PASSWORD)).headers.get("location")).toBe(WRONG);
    expect((await w.account(VICTIM))!.passwordHash).toBeNull();
  });

  test("a confirmed password is still another way in: the link is refused", async () => {
    const mails: URL[] = [];
    const w = passwordWorld({
      providers: [Email({ sendVerificationRequest: ({ url }) => void mails.push(new URL(url)) })],
    });
    // The user's password is confirmed, but the address is unproven again (an import, say).
    await w.verifiedUser(VICTIM);
    const user = (await w.adapter.getUserByEmail(VICTIM))!;
    await w.adapter.updateUser({ id: user.id, emailVerified: null });
    const visitor = new Jar();
    const { csrfToken } = await import("./helpers.js");
    await send(w.config, visitor, "/auth/signin/email", {
      form: { csrfToken: await csrfToken(w.config, visitor), email: VICTIM },
    });
    const response = await followLink(w.config, visitor, mails.at(-1)!);
    expect(response.headers.get("location")).toBe(signInError("OAuthAccountNotLinked"));
    expect(await w.signedInAs(visitor)).toBeNull();
  });

  test("where the link adopts the user, the attacker's password is void and the attacker signed out", async () => {
    // An adapter written for Auth.js cannot list a user's accounts: without OAuth providers, an
    // email link then adopts the user that holds its address unproven.
    const { listAccountsByUserId: _unlisted, ...adapter } = MemoryAdapter();
    const mails: URL[] = [];
    const w = passwordWorld({
      adapter,
      password: { requireEmailVerification: false },
      config: { session: { strategy: "jwt", revocation: { store: MemoryRevocationStore() } } },
      providers: [Email({ sendVerificationRequest: ({ url }) => void mails.push(new URL(url)) })],
    });
    const attacker = new Jar();
    await w.signUp(attacker, VICTIM, PASSWORD);
    await w.signIn(attacker, VICTIM, PASSWORD);
    expect(await w.signedInAs(attacker)).toBe(VICTIM);

    const victim = new Jar();
    const { csrfToken } = await import("./helpers.js");
    await send(w.config, victim, "/auth/signin/email", {
      form: { csrfToken: await csrfToken(w.config, victim), email: VICTIM },
    });
    const response = await followLink(w.config, victim, mails.at(-1)!);
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(await w.signedInAs(victim)).toBe(VICTIM);

    expect(await w.signedInAs(attacker)).toBeNull();
    expect((await w.signIn(new Jar(), VICTIM, PASSWORD)).headers.get("location")).toBe(WRONG);
    expect((await w.account(VICTIM))!.passwordHash).toBeNull();
  });

  test("a pending password is void once the address is proven, even if clearing it failed", async () => {
    const { listAccountsByUserId: _unlisted, ...base } = MemoryAdapter();
    let failing = false;
    const adapter = {
      ...base,
      updateAccount: (...args: Parameters<typeof base.updateAccount>) => {
        if (failing) return Promise.reject(new Error("database down"));
        return base.updateAccount(...args);
      },
    };
    const mails: URL[] = [];
    const w = passwordWorld({
      adapter,
      password: { requireEmailVerification: false },
      config: { session: { strategy: "jwt", revocation: { store: MemoryRevocationStore() } } },
      providers: [Email({ sendVerificationRequest: ({ url }) => void mails.push(new URL(url)) })],
    });
    await w.signUp(new Jar(), VICTIM, PASSWORD);
    failing = true;
    const victim = new Jar();
    const { csrfToken } = await import("./helpers.js");
    await send(w.config, victim, "/auth/signin/email", {
      form: { csrfToken: await csrfToken(w.config, victim), email: VICTIM },
    });
    await followLink(w.config, victim, mails.at(-1)!);
    expect(await w.signedInAs(victim)).toBe(VICTIM);
    expect((await w.account(VICTIM))!.passwordHash).toMatch(/^pending\$/);
    expect(w.logger.error).toHaveBeenCalled();
    expect((await w.signIn(new Jar(), VICTIM, PASSWORD)).headers.get("location")).toBe(WRONG);
  });
});

describe("the owner signs up with a passkey", () => {
  test("gets a user of their own, never the attacker's", async () => {
    const w = passwordWorld({
      providers: [Passkey()],
      config: { experimental: { enableWebAuthn: true } },
    });
    await w.signUp(new Jar(), VICTIM, PASSWORD);
    const squatted = (await w.adapter.getUserByEmail(VICTIM))!;
    const victim = new Jar();
    const device = new SoftAuthenticator();
    const options = await send(w.config, victim, "/auth/webauthn-options/passkey?action=register");
    const body = (await options.json()) as {
      options: Parameters<SoftAuthenticator["register"]>[0];
    };
    const done = await send(w.config, victim, "/auth/callback/passkey", {
      form: { action: "register", data: JSON.stringify(device.register(body.options, ORIGIN)) },
    });
    expect(done.headers.get("location")).toBe(ORIGIN);
    expect(await w.adapter.listAuthenticatorsByUserId(squatted.id)).toEqual([]);
    expect(await w.adapter.listAccountsByUserId(squatted.id)).toHaveLength(1);
    expect(await w.signedInAs(victim)).toBeFalsy();
  });
});

describe("the verification link never adopts a user the attacker gave another way in", () => {
  test("an attacker who added a passkey keeps the owner out instead of sharing the account", async () => {
    const w = passwordWorld({
      password: { requireEmailVerification: false },
      providers: [Passkey()],
      config: { experimental: { enableWebAuthn: true }, session: { strategy: "database" } },
    });
    const attacker = new Jar();
    await w.signUp(attacker, VICTIM, PASSWORD);
    await w.signIn(attacker, VICTIM, PASSWORD);
    const device = new SoftAuthenticator();
    const options = await send(
      w.config,
      attacker,
      "/auth/webauthn-options/passkey?action=register",
    );
    const body = (await options.json()) as {
      options: Parameters<SoftAuthenticator["register"]>[0];
    };
    await send(w.config, attacker, "/auth/callback/passkey", {
      form: { action: "register", data: JSON.stringify(device.register(body.options, ORIGIN)) },
    });
    const squatted = (await w.adapter.getUserByEmail(VICTIM))!;
    expect(await w.adapter.listAuthenticatorsByUserId(squatted.id)).toHaveLength(1);

    const victim = new Jar();
    const { response } = await w.follow(victim, w.lastLink(VICTIM), { password: OTHER_PASSWORD });
    expect(response.headers.get("location")).toBe(signInError("OAuthAccountNotLinked"));
    expect(await w.signedInAs(victim)).toBeNull();
    expect((await w.adapter.getUser(squatted.id))!.emailVerified).toBeNull();
  });
});
