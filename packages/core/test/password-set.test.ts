/**
 * Setting and removing a password while signed in (docs/passwords.md, "Setting and removing a
 * password"): a user who signs in another way adds a password once their address is proven and
 * their sign-in is recent; removing it needs the current one and another way in the user surely
 * holds. Written as the attacker where a rule is a defence.
 */
import type { Provider } from "@gatehousejs/core/types";
import { afterEach, describe, expect, test, vi } from "vitest";
import { csrfToken, Jar, ORIGIN, send } from "./helpers.js";
import { OTHER_PASSWORD, PASSWORD, passwordWorld, type WorldOptions } from "./password-world.js";

const OWNER = "owner@example.com";
const NEW_PASSWORD = "a brand new passphrase for me";

type World = ReturnType<typeof passwordWorld>;

afterEach(() => {
  vi.useRealTimers();
});

async function signedIn(w: World, password = PASSWORD): Promise<Jar> {
  const jar = new Jar();
  const response = await w.signIn(jar, OWNER, password);
  expect(response.headers.get("location")).toBe(ORIGIN);
  return jar;
}

/**
 * A signed-in user without a password, as after an OAuth or email-link sign-up: signed in with
 * one, which is then voided.
 */
async function withoutPassword(options: WorldOptions = {}) {
  const w = passwordWorld(options);
  const user = await w.verifiedUser(OWNER);
  const jar = await signedIn(w);
  await w.adapter.updateAccount({
    provider: "password",
    providerAccountId: user.id,
    passwordHash: null,
  });
  return { w, user, jar };
}

async function post(
  w: World,
  jar: Jar,
  route: string,
  fields: Record<string, string>,
  json = true,
) {
  const body = { csrfToken: await csrfToken(w.config, jar), ...fields };
  return send(w.config, jar, `/auth/${route}/password`, json ? { json: body } : { form: body });
}

describe("setting a password", () => {
  test("creates the password account: it signs in, the address is told, the log records it", async () => {
    const { w, user, jar } = await withoutPassword();
    const response = await post(w, jar, "set-password", { password: NEW_PASSWORD });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: "passwordSet" });
    expect(await w.signedInAs(jar)).toBe(OWNER);
    expect(await w.signedInAs(await signedIn(w, NEW_PASSWORD))).toBe(OWNER);
    expect(w.lastMail(OWNER).kind).toBe("passwordSet");
    const events = await w.securityLog.list(user.id, { limit: 50 });
    expect(events.map((e) => e.type)).toContain("passwordSet");
    const seen = JSON.stringify([events, w.events, w.logger.warn.mock.calls, w.mails]);
    expect(seen).not.toContain("scrypt$");
    expect(seen).not.toContain(NEW_PASSWORD);
  });

  test("a form post goes on to the callback URL; the page shows the form", async () => {
    const { w, jar } = await withoutPassword();
    const page = await send(w.config, jar, "/auth/set-password/password");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('autocomplete="new-password"');
    const response = await post(w, jar, "set-password", { password: NEW_PASSWORD }, false);
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(ORIGIN);
  });

  test("the policy applies", async () => {
    const { w, jar } = await withoutPassword();
    const response = await post(w, jar, "set-password", { password: "short" });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "PasswordTooShort" });
  });

  test("a user who has a password changes it instead", async () => {
    const w = passwordWorld();
    await w.verifiedUser(OWNER);
    const jar = await signedIn(w);
    const response = await post(w, jar, "set-password", { password: NEW_PASSWORD });
    expect(await response.json()).toMatchObject({ error: "PasswordExists" });
    expect(await w.signedInAs(await signedIn(w))).toBe(OWNER);
  });

  test("attacker: on an address nobody proved, no password is set", async () => {
    const { w, user, jar } = await withoutPassword();
    await w.adapter.updateUser({ id: user.id, emailVerified: null });
    const response = await post(w, jar, "set-password", { password: NEW_PASSWORD });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "EmailUnproven" });
    expect((await w.account(OWNER))?.passwordHash ?? null).toBeNull();
  });

  test("attacker: an old session (a stolen cookie) cannot add a password", async () => {
    const { w, jar } = await withoutPassword();
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 11 * 60_000 });
    const response = await post(w, jar, "set-password", { password: NEW_PASSWORD });
    expect(await response.json()).toMatchObject({ error: "ReauthenticationRequired" });
    expect((await w.account(OWNER))?.passwordHash ?? null).toBeNull();
  });

  test("attacker: without the CSRF token nothing is set", async () => {
    const { w, jar } = await withoutPassword();
    const response = await send(w.config, jar, "/auth/set-password/password", {
      form: { password: NEW_PASSWORD },
    });
    expect(response.headers.get("location")).toContain("error=MissingCSRF");
    expect((await w.account(OWNER))?.passwordHash ?? null).toBeNull();
  });

  test("signed out: 401", async () => {
    const w = passwordWorld();
    const response = await post(w, new Jar(), "set-password", { password: NEW_PASSWORD });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: "Unauthenticated" });
  });
});

describe("removing the password", () => {
  test("with another way in: voided; other sessions end, this one goes on; told and logged", async () => {
    const w = passwordWorld({ emailSignIn: true });
    const user = await w.verifiedUser(OWNER);
    const other = await signedIn(w);
    const jar = await signedIn(w);
    const response = await post(w, jar, "remove-password", { currentPassword: PASSWORD });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: "passwordRemoved" });
    expect(await w.signedInAs(jar)).toBe(OWNER);
    expect(await w.signedInAs(other)).toBeNull();
    expect((await w.signIn(new Jar(), OWNER)).headers.get("location")).not.toBe(ORIGIN);
    expect(w.lastMail(OWNER).kind).toBe("passwordRemoved");
    const events = await w.securityLog.list(user.id, { limit: 50 });
    expect(events.map((e) => e.type)).toContain("passwordRemoved");
    // The way in it kept.
    const fresh = new Jar();
    await w.emailSignIn(fresh, OWNER);
    expect(await w.signedInAs(fresh)).toBe(OWNER);
  });

  test("an account of a configured OpenID provider counts, where the adapter lists accounts", async () => {
    const idp = {
      id: "idp",
      type: "oidc",
      name: "IdP",
      issuer: "https://idp.example",
      clientId: "client",
      clientSecret: "secret",
    } as unknown as Provider;
    const w = passwordWorld({ providers: [idp] });
    const user = await w.verifiedUser(OWNER);
    await w.adapter.linkAccount({
      userId: user.id,
      type: "oidc",
      provider: "idp",
      providerAccountId: "sub-1",
    });
    const jar = await signedIn(w);
    const response = await post(w, jar, "remove-password", { currentPassword: PASSWORD });
    expect(response.status).toBe(200);
    // The same account of a provider the configuration no longer has does not count.
    const gone = passwordWorld();
    const other = await gone.verifiedUser(OWNER);
    await gone.adapter.linkAccount({
      userId: other.id,
      type: "oidc",
      provider: "idp",
      providerAccountId: "sub-1",
    });
    const refused = await post(gone, await signedIn(gone), "remove-password", {
      currentPassword: PASSWORD,
    });
    expect(await refused.json()).toMatchObject({ error: "LastWayIn" });
  });

  test("attacker: the last way in is not removed", async () => {
    const w = passwordWorld();
    await w.verifiedUser(OWNER);
    const jar = await signedIn(w);
    const response = await post(w, jar, "remove-password", { currentPassword: PASSWORD });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "LastWayIn" });
    expect(await w.signedInAs(await signedIn(w))).toBe(OWNER);
  });

  test("attacker: an email provider does not count for an address nobody proved", async () => {
    const w = passwordWorld({
      emailSignIn: true,
      password: { requireEmailVerification: false },
    });
    const user = await w.verifiedUser(OWNER);
    await w.adapter.updateUser({ id: user.id, emailVerified: null });
    const jar = await signedIn(w);
    const response = await post(w, jar, "remove-password", { currentPassword: PASSWORD });
    expect(await response.json()).toMatchObject({ error: "LastWayIn" });
  });

  test("a wrong current password is refused; no password to remove is refused", async () => {
    const w = passwordWorld({ emailSignIn: true });
    await w.verifiedUser(OWNER);
    const jar = await signedIn(w);
    const wrong = await post(w, jar, "remove-password", { currentPassword: OTHER_PASSWORD });
    expect(await wrong.json()).toMatchObject({ error: "WrongPassword" });
    expect(await w.signedInAs(await signedIn(w))).toBe(OWNER);
    expect((await post(w, jar, "remove-password", { currentPassword: PASSWORD })).status).toBe(200);
    const none = await post(w, jar, "remove-password", { currentPassword: PASSWORD });
    expect(await none.json()).toMatchObject({ error: "NoPassword" });
  });

  test("attacker: without the CSRF token nothing is removed", async () => {
    const w = passwordWorld({ emailSignIn: true });
    await w.verifiedUser(OWNER);
    const jar = await signedIn(w);
    const response = await send(w.config, jar, "/auth/remove-password/password", {
      form: { currentPassword: PASSWORD },
    });
    expect(response.headers.get("location")).toContain("error=MissingCSRF");
    expect(await w.signedInAs(await signedIn(w))).toBe(OWNER);
  });
});
