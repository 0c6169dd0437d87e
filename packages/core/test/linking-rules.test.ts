import type { OIDCOptions } from "@gatehousejs/core/providers/oidc";
import type { EmailConfig } from "@gatehousejs/core/types";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { Jar, ORIGIN } from "./helpers.js";
import { emailWorld } from "./support/email-world.js";
import { expectOneFailure } from "./support/failures.js";
import {
  expectNoSessionCookie,
  sessionOf,
  signInError,
  signInThrough,
  twoIdps,
} from "./support/oauth-flow.js";
import { defaultClaims, type OidcServer, startOidcProvider } from "./support/oidc-server.js";

const VICTIM = "victim@example.com";

/**
 * `victim` proves victim@example.com; `mallory` claims it with `email_verified: false`;
 * `quiet` has quiet@example.com and says nothing about verification; `squatter` claims
 * quiet@example.com the same way.
 */
function claims(account: string): Record<string, unknown> {
  switch (account) {
    case "victim":
      return { email: VICTIM, email_verified: true, name: "Victim" };
    case "mallory":
      return { email: VICTIM, email_verified: false, name: "Mallory" };
    case "quiet":
      return { email: "quiet@example.com", name: "Quiet" };
    default:
      return defaultClaims(account);
  }
}

let op: OidcServer;
beforeAll(async () => {
  op = await startOidcProvider({ claims });
});
afterAll(() => op.close());

function setup(options: { idp2?: OIDCOptions; email?: boolean } = {}) {
  const world = emailWorld({ providers: twoIdps(op, options.idp2), email: options.email });
  return { ...world, adapter: world.memory };
}

const as = (account: string) => ({ query: { login_hint: account } });

describe("email_verified: false is no claim on the address", () => {
  test("with dangerous linking, it is not linked to the verified user who has the address", async () => {
    const { adapter, config, ownerOf } = setup({
      idp2: { allowDangerousEmailAccountLinking: true },
    });
    await signInThrough(config, new Jar(), "idp", as("victim"));
    const victim = ownerOf("idp", "victim")!;

    const jar = new Jar();
    const response = await signInThrough(config, jar, "idp2", as("mallory"));
    expect(response.headers.get("location")).toBe(ORIGIN);
    const mallory = ownerOf("idp2", "mallory");
    expect(mallory).toBeDefined();
    expect(mallory).not.toBe(victim);
    // Mallory's user does not hold the address she could not prove.
    expect(adapter.rows.user(mallory!)).toMatchObject({ email: "", emailVerified: null });
    expect((await sessionOf(config, jar))?.user?.email).toBeFalsy();
    expect(adapter.rows.count()).toMatchObject({ users: 2, accounts: 2 });
  });

  test("without dangerous linking, it signs up a user of its own instead of being refused", async () => {
    const { adapter, config, logger, ownerOf } = setup();
    await signInThrough(config, new Jar(), "idp", as("victim"));
    const response = await signInThrough(config, new Jar(), "idp2", as("mallory"));
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(ownerOf("idp2", "mallory")).not.toBe(ownerOf("idp", "victim"));
    expect(adapter.rows.count()).toMatchObject({ users: 2, accounts: 2 });
    expect(logger.error).not.toHaveBeenCalled();
  });

  test("signing up first does not keep the real owner out of email sign-in", async () => {
    const { adapter, config, ownerOf, emailSignIn } = setup();
    await signInThrough(config, new Jar(), "idp2", as("mallory"));
    const mallory = ownerOf("idp2", "mallory")!;

    // The owner proves the address by email: a user of their own, not Mallory's.
    const { response, jar } = await emailSignIn(VICTIM);
    expect(response.headers.get("location")).toBe(ORIGIN);
    const owner = await adapter.getUserByEmail!(VICTIM);
    expect(owner?.id).not.toBe(mallory);
    expect(owner?.emailVerified).toBeInstanceOf(Date);
    expect((await sessionOf(config, jar))?.user?.email).toBe(VICTIM);

    // Mallory's OAuth account still signs in only as Mallory.
    const again = new Jar();
    await signInThrough(config, again, "idp2", as("mallory"));
    expect((await sessionOf(config, again))?.user?.email).toBeFalsy();
    expect(ownerOf("idp2", "mallory")).toBe(mallory);
  });

  test("signing up first does not keep the real owner out of OAuth sign-up", async () => {
    const { adapter, config, logger, ownerOf, emailSignIn } = setup();
    await signInThrough(config, new Jar(), "idp2", as("mallory"));
    const jar = new Jar();
    const response = await signInThrough(config, jar, "idp", as("victim"));
    expect(response.headers.get("location")).toBe(ORIGIN);
    const victim = ownerOf("idp", "victim")!;
    expect(victim).not.toBe(ownerOf("idp2", "mallory"));
    expect(adapter.rows.user(victim)).toMatchObject({ email: VICTIM });
    expect((await sessionOf(config, jar))?.user?.email).toBe(VICTIM);
    // The address is the victim's: a later email link signs in as them.
    await emailSignIn(VICTIM);
    expect(ownerOf("email", VICTIM)).toBe(victim);
    expect(logger.error).not.toHaveBeenCalled();
  });
});

describe("an email link that finds an unverified user", () => {
  test("holding an OAuth account it was not proven for: refused, nothing adopted", async () => {
    const { adapter, config, logger, ownerOf, emailSignIn } = setup();
    await signInThrough(config, new Jar(), "idp", as("quiet"));
    const quiet = ownerOf("idp", "quiet")!;
    expect(adapter.rows.user(quiet)?.emailVerified).toBeNull();

    const { response, jar } = await emailSignIn("quiet@example.com");
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(signInError("OAuthAccountNotLinked"));
    expectNoSessionCookie(response);
    expectOneFailure(logger, "OAuthAccountNotLinked", { level: "warn", text: /unverified/ });
    expect(await sessionOf(config, jar)).toBeNull();
    expect(adapter.rows.user(quiet)?.emailVerified).toBeNull();
    expect(adapter.rows.count()).toMatchObject({ users: 1, accounts: 1 });
  });

  test("that is the signed-in user: the link proves the address for it", async () => {
    const { adapter, config, ownerOf, emailSignIn } = setup();
    const jar = new Jar();
    await signInThrough(config, jar, "idp", as("quiet"));
    const quiet = ownerOf("idp", "quiet")!;

    const { response } = await emailSignIn("quiet@example.com", jar);
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(adapter.rows.user(quiet)?.emailVerified).toBeInstanceOf(Date);
    expect(ownerOf("email", "quiet@example.com")).toBe(quiet);
    expect((await sessionOf(config, jar))?.user?.email).toBe("quiet@example.com");
  });

  test("holding a passkey: refused, even where no OAuth provider is configured", async () => {
    const { adapter, config, logger, emailSignIn } = setup();
    config.providers = config.providers.filter((p) => (p as EmailConfig).type === "email");
    const squat = await adapter.createUser!({
      id: "squat",
      email: "someone@example.com",
      emailVerified: null,
    });
    await adapter.linkAccount!({
      userId: squat.id,
      provider: "passkey",
      providerAccountId: "cred-1",
      type: "webauthn",
    });
    await adapter.createAuthenticator!({
      credentialID: "cred-1",
      providerAccountId: "cred-1",
      credentialPublicKey: "AA",
      counter: 0,
      credentialBackedUp: false,
      credentialDeviceType: "singleDevice",
      userId: squat.id,
    });
    const { response, jar } = await emailSignIn("someone@example.com");
    expect(response.headers.get("location")).toBe(signInError("OAuthAccountNotLinked"));
    expectOneFailure(logger, "OAuthAccountNotLinked", { level: "warn" });
    expect(await sessionOf(config, jar)).toBeNull();
    expect(adapter.rows.user("squat")?.emailVerified).toBeNull();
  });

  test("whose address a provider verified is adopted as before", async () => {
    const { adapter, config, ownerOf, emailSignIn } = setup();
    await signInThrough(config, new Jar(), "idp", as("victim"));
    const victim = ownerOf("idp", "victim")!;
    expect(adapter.rows.user(victim)?.emailVerified).toBeInstanceOf(Date);
    const { response, jar } = await emailSignIn(VICTIM);
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(ownerOf("email", VICTIM)).toBe(victim);
    expect((await sessionOf(config, jar))?.user?.email).toBe(VICTIM);
  });
});

describe("dangerous email linking", () => {
  test("never links into a user whose address nobody proved", async () => {
    const { adapter, config, logger, ownerOf } = setup({
      idp2: { allowDangerousEmailAccountLinking: true },
    });
    // A user holding the address without proof (a passkey sign-up from before the fix, say).
    await adapter.createUser!({ id: "squat", email: VICTIM, emailVerified: null });
    const jar = new Jar();
    const response = await signInThrough(config, jar, "idp2", as("victim"));
    expect(response.headers.get("location")).toBe(signInError("OAuthAccountNotLinked"));
    expectOneFailure(logger, "OAuthAccountNotLinked", { level: "warn" });
    expect(ownerOf("idp2", "victim")).toBeUndefined();
    expect(await sessionOf(config, jar)).toBeNull();
  });

  test("links into a user whose address was proven by an email link", async () => {
    const { config, ownerOf, emailSignIn } = setup({
      idp2: { allowDangerousEmailAccountLinking: true },
    });
    await emailSignIn(VICTIM);
    const owner = ownerOf("email", VICTIM)!;
    const response = await signInThrough(config, new Jar(), "idp2", as("victim"));
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(ownerOf("idp2", "victim")).toBe(owner);
  });
});
