/**
 * Changing the password while signed in (docs/passwords.md): the current password is needed,
 * under the sign-in backoff of the account; every other session ends and this browser's goes on
 * under a new id (a copy of its old cookie stops working); the address is told, the security log
 * records it, and an outstanding reset link stops working.
 */
import { MemoryRevocationStore } from "@gatehousejs/core/revocation/memory";
import type { AuthConfig } from "@gatehousejs/core/types";
import { describe, expect, test } from "vitest";
import { Jar, ORIGIN, send } from "./helpers.js";
import { OTHER_PASSWORD, PASSWORD, passwordWorld } from "./password-world.js";
import { formOf } from "./support/email-link.js";

const OWNER = "owner@example.com";
const NEW_PASSWORD = "a brand new passphrase for me";
const SESSION = "authjs.session-token";

async function signedIn(w: ReturnType<typeof passwordWorld>, password = PASSWORD): Promise<Jar> {
  const jar = new Jar();
  const response = await w.signIn(jar, OWNER, password);
  expect(response.headers.get("location")).toBe(ORIGIN);
  return jar;
}

/** A second browser holding a copy of `jar`'s cookies (a stolen cookie, say). */
function copyOf(jar: Jar): Jar {
  const copy = new Jar();
  for (const [name, value] of jar.cookies) copy.cookies.set(name, value);
  return copy;
}

const strategies: [string, () => AuthConfig["session"]][] = [
  ["database sessions", () => ({ strategy: "database" })],
  [
    "JWT sessions with a revocation store",
    () => ({ strategy: "jwt", revocation: { store: MemoryRevocationStore() } }),
  ],
];

describe("with the current password", () => {
  for (const [name, session] of strategies) {
    test(`every other session ends; this one goes on under a new id (${name})`, async () => {
      const w = passwordWorld({ config: { session: session() } });
      const user = await w.verifiedUser(OWNER);
      const other = await signedIn(w);
      const jar = await signedIn(w);
      const stolen = copyOf(jar);
      const before = jar.cookies.get(SESSION);

      const response = await w.changePassword(jar, PASSWORD, NEW_PASSWORD);
      expect(response.status).toBe(302);
      expect(response.headers.get("location")).toBe(ORIGIN);
      expect(jar.cookies.get(SESSION)).toBeTruthy();
      expect(jar.cookies.get(SESSION)).not.toBe(before);
      expect(await w.signedInAs(jar)).toBe(OWNER);
      expect(await w.signedInAs(other)).toBeNull();
      expect(await w.signedInAs(stolen)).toBeNull();
      // Still this browser's session after another check.
      expect(await w.signedInAs(jar)).toBe(OWNER);

      const old = await w.signIn(new Jar(), OWNER, PASSWORD);
      expect(old.headers.get("location")).toContain("error=CredentialsSignin");
      await signedIn(w, NEW_PASSWORD);
      expect(w.lastMail(OWNER).kind).toBe("passwordChanged");
      const events = await w.securityLog.list(user.id, { limit: 20 });
      expect(events.map((e) => e.type)).toContain("passwordChanged");
      expect(events.find((e) => e.type === "sessionRevoked")).toMatchObject({
        reason: "passwordChanged",
      });
    });
  }

  test("JSON: answers passwordChanged and re-issues the session cookie", async () => {
    const w = passwordWorld();
    await w.verifiedUser(OWNER);
    const jar = await signedIn(w);
    const before = jar.cookies.get(SESSION);
    const response = await w.changePassword(jar, PASSWORD, NEW_PASSWORD, true);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: "passwordChanged",
      message: "Your password was changed, and every other browser was signed out.",
    });
    expect(jar.cookies.get(SESSION)).not.toBe(before);
    expect(await w.signedInAs(jar)).toBe(OWNER);
  });

  test("an outstanding reset link stops working", async () => {
    const w = passwordWorld();
    await w.verifiedUser(OWNER);
    await w.requestReset(new Jar(), OWNER);
    const link = new URL(w.lastMail(OWNER, "resetPassword").url);
    const jar = await signedIn(w);
    await w.changePassword(jar, PASSWORD, NEW_PASSWORD);
    const { response } = await w.follow(new Jar(), link, { password: OTHER_PASSWORD });
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Verification`);
  });
});

describe("refusals", () => {
  test("a wrong current password: the form again, focused on it, and nothing changed", async () => {
    const w = passwordWorld();
    await w.verifiedUser(OWNER);
    const jar = await signedIn(w);
    const other = await signedIn(w);
    const response = await w.changePassword(jar, OTHER_PASSWORD, NEW_PASSWORD);
    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).toContain("The current password is wrong.");
    expect(html).toMatch(/<div id="error" class="error" role="alert" tabindex="-1" autofocus>/);
    expect(html).toMatch(/name="currentPassword"[^>]*aria-invalid="true"/);
    expect(await w.signedInAs(other)).toBe(OWNER);
    await signedIn(w, PASSWORD);
    expect(w.mails.filter((m) => m.kind === "passwordChanged")).toHaveLength(0);
    const json = await w.changePassword(jar, OTHER_PASSWORD, NEW_PASSWORD, true);
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: "WrongPassword" });
  });

  test("a new password the policy refuses is refused before the current one is tried", async () => {
    const w = passwordWorld();
    await w.verifiedUser(OWNER);
    const jar = await signedIn(w);
    const response = await w.changePassword(jar, PASSWORD, "short", true);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "PasswordTooShort" });
    await signedIn(w, PASSWORD);
  });

  test("wrong current passwords count as failed sign-ins of the account", async () => {
    const w = passwordWorld({
      config: {
        clientAddress: () => "203.0.113.7",
        rateLimit: {
          credentials: { failures: { freeAttempts: 2, baseSeconds: 60, maxSeconds: 60 } },
        },
      },
    });
    await w.verifiedUser(OWNER);
    const jar = await signedIn(w);
    for (let i = 0; i < 3; i++) {
      const wrong = await w.changePassword(jar, `${OTHER_PASSWORD} ${i}`, NEW_PASSWORD, true);
      expect(wrong.status).toBe(400);
    }
    // Now even the right password waits, here and at sign-in from this browser.
    const right = await send(w.config, jar, "/auth/change-password/password", {
      json: { csrfToken: await csrf(w, jar), currentPassword: PASSWORD, password: NEW_PASSWORD },
      headers: { accept: "application/json" },
    });
    expect(right.status).toBe(429);
    const signIn = await w.signIn(jar, OWNER, PASSWORD);
    expect(signIn.headers.get("location")).toContain("error=RateLimited");
    // And the password is unchanged.
    expect(w.mails.filter((m) => m.kind === "passwordChanged")).toHaveLength(0);
  });

  test("signed out: a JSON 401, and the page sends the browser to sign in first", async () => {
    const w = passwordWorld();
    await w.verifiedUser(OWNER);
    const jar = new Jar();
    const json = await w.changePassword(jar, PASSWORD, NEW_PASSWORD, true);
    expect(json.status).toBe(401);
    expect(await json.json()).toMatchObject({ error: "Unauthenticated" });
    const page = await send(w.config, jar, "/auth/change-password/password");
    expect(page.status).toBe(302);
    const location = new URL(page.headers.get("location")!);
    expect(location.pathname).toBe("/auth/signin");
    expect(location.searchParams.get("callbackUrl")).toBe(
      `${ORIGIN}/auth/change-password/password`,
    );
  });

  test("a user without a password has none to change", async () => {
    const w = passwordWorld();
    await w.verifiedUser(OWNER);
    const jar = await signedIn(w);
    const user = (await w.adapter.getUserByEmail(OWNER))!;
    await w.adapter.updateAccount({
      provider: "password",
      providerAccountId: user.id,
      passwordHash: null,
    });
    const response = await w.changePassword(jar, PASSWORD, NEW_PASSWORD, true);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "NoPassword" });
  });

  test("without the CSRF token nothing changes", async () => {
    const w = passwordWorld();
    await w.verifiedUser(OWNER);
    const jar = await signedIn(w);
    const response = await send(w.config, jar, "/auth/change-password/password", {
      form: { currentPassword: PASSWORD, password: NEW_PASSWORD },
    });
    expect(response.headers.get("location")).toContain("error=MissingCSRF");
    await signedIn(w, PASSWORD);
  });
});

describe("the page", () => {
  test("labelled fields for the current and the new password, and the forgotten-password link", async () => {
    const w = passwordWorld();
    await w.verifiedUser(OWNER);
    const jar = await signedIn(w);
    const response = await send(w.config, jar, "/auth/change-password/password");
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain("<h1>Change your password</h1>");
    expect(html).toMatch(
      /<label for="input-current-password-for-password-provider">Current password<\/label>/,
    );
    expect(html).toMatch(
      /id="input-current-password-for-password-provider"[^>]*autocomplete="current-password"/,
    );
    expect(html).toMatch(/<label for="input-password-for-password-provider">New password<\/label>/);
    expect(html).toContain(`href="${ORIGIN}/auth/forgot-password/password"`);
    expect(html).not.toContain("<script");
    // Its form, posted as a browser would, changes the password.
    const { action, fields } = formOf(html);
    const target = new URL(action);
    const posted = await send(w.config, jar, target.pathname, {
      form: { ...fields, currentPassword: PASSWORD, password: NEW_PASSWORD },
    });
    expect(posted.headers.get("location")).toBe(ORIGIN);
    await signedIn(w, NEW_PASSWORD);
  });
});

async function csrf(w: ReturnType<typeof passwordWorld>, jar: Jar): Promise<string> {
  const { csrfToken } = await import("./helpers.js");
  return csrfToken(w.config, jar);
}
