/**
 * Password accounts from `@gatehousejs/core/client`: `signUp`, `requestPasswordReset`,
 * `resetPassword`, `changePassword` and `signIn("password")`, driven against a real `Auth()`
 * handler with the password provider on the memory adapter and its email captured. Refusals
 * reject as `AuthRouteError` with the route's stable error value and message, and no thrown
 * error ever holds a password.
 */
import {
  AuthRouteError,
  changePassword,
  configureClient,
  readPasswordResetLink,
  requestPasswordReset,
  resetPassword,
  signIn,
  signOut,
  signUp,
} from "@gatehousejs/core/client";
import type { AuthConfig } from "@gatehousejs/core/types";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { browserOn } from "./client-browser.js";
import { ORIGIN } from "./helpers.js";
import { OTHER_PASSWORD, PASSWORD, passwordWorld, type WorldOptions } from "./password-world.js";
import { formOf } from "./support/email-link.js";

const NEW = "ada@example.com";
const TAKEN = "grace@example.com";
const NEW_PASSWORD = "a brand new passphrase for me";
const SESSION = "authjs.session-token";

/** No per-address email limit: some tests mail one address more than three times. */
const unlimited: Partial<AuthConfig> = { rateLimit: { email: { perAddress: false } } };

/** An app with the password provider under /api/auth, the client's default base path. */
function world(options: WorldOptions = {}) {
  return passwordWorld({ ...options, config: { basePath: "/api/auth", ...options.config } });
}

/** What `promise` rejected with, which must be an `AuthRouteError`. */
async function refusal(promise: Promise<unknown>): Promise<AuthRouteError> {
  const error = await promise.then(
    () => {
      throw new Error("expected a refusal");
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AuthRouteError);
  return error as AuthRouteError;
}

/** Everything an error says about itself, where a password must never appear. */
function textOf(error: AuthRouteError): string {
  return [
    String(error),
    error.message,
    error.detail ?? "",
    error.stack ?? "",
    JSON.stringify(error),
  ].join("\n");
}

/** Opens an emailed link in the current browser and presses its page's button (as a person does). */
async function openAndConfirm(url: string): Promise<Response> {
  const page = await fetch(url);
  expect(page.status).toBe(200);
  const { action, fields } = formOf(await page.text());
  return fetch(action, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
}

beforeEach(() => {
  configureClient({});
});

afterEach(() => {
  vi.unstubAllGlobals();
  configureClient({});
});

describe("signUp", () => {
  test("answers a new and a taken address alike; the new one's link confirms it, and signIn('password') signs in", async () => {
    const w = world();
    await w.verifiedUser(TAKEN);
    const browser = browserOn(w.config);

    const taken = await signUp({ email: TAKEN, password: OTHER_PASSWORD });
    expect(browser.sent.map((s) => `${s.method} ${s.url.pathname}`)).toEqual([
      "GET /api/auth/csrf",
      "POST /api/auth/signup/password",
    ]);
    const posted = JSON.parse(browser.sent.at(-1)!.body) as Record<string, unknown>;
    expect(Object.keys(posted).sort()).toEqual(["csrfToken", "email", "password"]);

    // The last sign-up is the one this browser's cookie binds its link to.
    const fresh = await signUp({ email: NEW, password: PASSWORD });
    expect(fresh).toEqual({
      ok: true,
      status: "verificationSent",
      message: "Check your email: open the link we sent to confirm your address.",
    });
    expect(taken).toEqual(fresh);
    expect(w.lastMail(TAKEN).kind).toBe("accountExists");
    expect(w.lastMail(NEW).kind).toBe("verifyEmail");

    // Not proven yet: the right password says so, and nothing is signed in.
    const early = await signIn("password", { email: NEW, password: PASSWORD, redirect: false });
    expect(early).toMatchObject({ ok: false, error: "EmailNotVerified", url: null });
    expect(browser.jar.cookies.get(SESSION)).toBeUndefined();

    // The link, opened in the browser that signed up, proves the address and signs in.
    const confirmed = await openAndConfirm(w.lastMail(NEW).url);
    expect(confirmed.status).toBe(302);
    expect(browser.jar.cookies.get(SESSION)).toBeTruthy();
    expect((await w.adapter.getUserByEmail(NEW))?.emailVerified).toBeInstanceOf(Date);

    await signOut({ redirect: false });
    expect(browser.jar.cookies.get(SESSION)).toBeUndefined();
    const wrong = await signIn("password", {
      email: NEW,
      password: OTHER_PASSWORD,
      redirect: false,
    });
    expect(wrong).toEqual({
      ok: false,
      error: "CredentialsSignin",
      code: "credentials",
      status: 200,
      url: null,
    });
    const right = await signIn("password", {
      email: NEW,
      password: PASSWORD,
      redirect: false,
      callbackUrl: "/account",
    });
    expect(right).toEqual({
      ok: true,
      error: undefined,
      code: undefined,
      status: 200,
      url: `${ORIGIN}/account`,
    });
    expect(browser.sent.at(-1)!.url.pathname).toBe("/api/auth/callback/password");
    expect(browser.jar.cookies.get(SESSION)).toBeTruthy();
  });

  test("the policy's refusals are AuthRouteErrors with the error value and what to change, never the password", async () => {
    const w = world({ config: unlimited });
    browserOn(w.config);
    const cases = [
      ["too short", "PasswordTooShort", /^Use at least 15 characters/],
      ["1qaz2wsx3edc4rfv", "PasswordTooCommon", /^Choose a less common password/],
      ["long passphrase ".repeat(9), "PasswordTooLong", /^Use at most 128 characters\.$/],
      [`lone surrogate \ud800 in a long one`, "PasswordInvalid", /^Type the password again/],
    ] as const;
    for (const [password, value, message] of cases) {
      const error = await refusal(signUp({ email: NEW, password }));
      expect(error.status, value).toBe(400);
      expect(error.error).toBe(value);
      expect(error.detail).toMatch(message);
      expect(error.message).toBe(
        `The auth route answered 400 (${value}) to the sign-up: ${error.detail}`,
      );
      expect(textOf(error)).not.toContain(password);
      expect(textOf(error)).not.toContain(password.trim());
    }
    // Nothing was created, nothing mailed.
    expect(await w.adapter.getUserByEmail(NEW)).toBeNull();
    expect(w.mails).toEqual([]);
  });

  test("a malformed address is InvalidEmail; an extra field the provider does not take is InvalidFields", async () => {
    const w = world();
    browserOn(w.config);
    const address = await refusal(signUp({ email: "not an address", password: PASSWORD }));
    expect(address).toMatchObject({ status: 400, error: "InvalidEmail" });
    expect(address.detail).toBe("Enter a valid email address.");
    const extra = await refusal(signUp({ email: NEW, password: PASSWORD, nickname: "ada" }));
    expect(extra).toMatchObject({ status: 400, error: "InvalidFields" });
    expect(extra.detail).toBe("Check these fields: nickname: Unknown field.");
    expect(textOf(extra)).not.toContain(PASSWORD);
  });

  test("extra fields go as JSON values to the provider's schema, and are stored on the new user", async () => {
    const validate = vi.fn((value: unknown) => {
      const { name, age } = value as { name?: unknown; age?: unknown };
      if (typeof name !== "string" || typeof age !== "number") {
        return { issues: [{ message: "Expected a name and an age", path: ["name"] }] };
      }
      return { value: { name, age } };
    });
    const w = world({
      password: { fields: { "~standard": { version: 1, vendor: "test", validate } } },
    });
    browserOn(w.config);
    await signUp({ email: NEW, password: PASSWORD, name: "Ada", age: 36 });
    expect(validate).toHaveBeenCalledWith({ name: "Ada", age: 36 });
    expect(await w.adapter.getUserByEmail(NEW)).toMatchObject({ name: "Ada", age: 36 });
  });

  test("the verification link ends at callbackUrl", async () => {
    const w = world();
    browserOn(w.config);
    await signUp({ email: NEW, password: PASSWORD }, { callbackUrl: "/welcome" });
    const link = new URL(w.lastMail(NEW).url);
    expect(link.searchParams.get("callbackUrl")).toBe(`${ORIGIN}/welcome`);
    const confirmed = await openAndConfirm(link.href);
    expect(confirmed.headers.get("location")).toBe(`${ORIGIN}/welcome`);
  });

  test("strings only, refused before any request and without naming what was given", async () => {
    const w = world();
    const browser = browserOn(w.config);
    const secret = { toString: () => PASSWORD };
    await expect(signUp({ email: NEW, password: secret as never })).rejects.toThrow(
      new TypeError("signUp takes password as a string"),
    );
    await expect(
      changePassword({ currentPassword: PASSWORD, newPassword: 42 as never }),
    ).rejects.toThrow(TypeError);
    await expect(requestPasswordReset(undefined as never)).rejects.toThrow(TypeError);
    expect(browser.sent).toEqual([]);
  });
});

describe("another base path and provider id", () => {
  test("each call goes to <basePath>/<route>/<provider>, by option or configureClient", async () => {
    const w = passwordWorld({ password: { id: "members" }, config: { basePath: "/auth" } });
    const browser = browserOn(w.config);
    await signUp({ email: NEW, password: PASSWORD }, { provider: "members", basePath: "/auth" });
    configureClient({ basePath: "/auth" });
    await requestPasswordReset(NEW, { provider: "members" });
    expect(browser.sent.map((s) => `${s.method} ${s.url.pathname}`)).toEqual([
      "GET /auth/csrf",
      "POST /auth/signup/members",
      "GET /auth/csrf",
      "POST /auth/forgot-password/members",
    ]);
    expect(w.mails.map((m) => m.kind)).toEqual(["verifyEmail", "resetUnconfirmed"]);
  });

  test("a provider the route does not know is the route's refusal", async () => {
    const w = world();
    browserOn(w.config);
    const error = await refusal(signUp({ email: NEW, password: PASSWORD }, { provider: "nope" }));
    expect(error).toMatchObject({ status: 400, error: "InvalidProvider" });
  });
});

describe("resetting a forgotten password", () => {
  test("a request answers known and unknown addresses alike; the mailed token sets the password and signs in", async () => {
    const w = world({ config: unlimited });
    await w.verifiedUser(TAKEN);
    const browser = browserOn(w.config);

    const known = await requestPasswordReset(TAKEN, { callbackUrl: "/account" });
    const unknown = await requestPasswordReset("nobody@example.com");
    expect(known).toEqual({
      ok: true,
      status: "resetSent",
      message: "If an account uses this address, we sent it a link to choose a new password.",
    });
    expect(unknown).toEqual(known);
    expect(w.lastMail("nobody@example.com").kind).toBe("resetUnavailable");

    const mail = w.lastMail(TAKEN, "resetPassword");
    const link = readPasswordResetLink(mail.url);
    expect(link).toEqual({
      token: expect.stringMatching(/^[0-9a-f]{64}$/),
      email: TAKEN,
      callbackUrl: `${ORIGIN}/account`,
    });
    const { token, email, callbackUrl } = link!;

    // A refused password spends nothing: the same token works afterwards.
    const short = await refusal(resetPassword({ token, email, password: "too short" }));
    expect(short).toMatchObject({ status: 400, error: "PasswordTooShort" });
    expect(textOf(short)).not.toContain("too short");

    const done = await resetPassword({ token, email, password: NEW_PASSWORD }, { callbackUrl });
    expect(done).toEqual({ ok: true, url: `${ORIGIN}/account` });
    expect(browser.navigations).toEqual([]);
    expect(browser.jar.cookies.get(SESSION)).toBeTruthy();
    const sent = JSON.parse(browser.sent.at(-1)!.body) as Record<string, unknown>;
    expect(Object.keys(sent).sort()).toEqual([
      "callbackUrl",
      "csrfToken",
      "email",
      "password",
      "token",
    ]);
    expect(w.lastMail(TAKEN).kind).toBe("passwordChanged");

    // Used once.
    const again = await refusal(resetPassword({ token, email, password: OTHER_PASSWORD }));
    // A JSON client gets the refusal as JSON (the route's `jsonErrors`), in plain words.
    expect(again).toMatchObject({ status: 400, error: "Verification" });
    expect(again.detail).toMatch(/no longer valid/);
    expect(textOf(again)).not.toContain(OTHER_PASSWORD);
    expect(textOf(again)).not.toContain(token);

    // The old password is gone, the new one signs in.
    await signOut({ redirect: false });
    const old = await signIn("password", { email: TAKEN, password: PASSWORD, redirect: false });
    expect(old.error).toBe("CredentialsSignin");
    const fresh = await signIn("password", {
      email: TAKEN,
      password: NEW_PASSWORD,
      redirect: false,
    });
    expect(fresh.ok).toBe(true);
  });

  test("readPasswordResetLink reads the current page: a link the app's sendEmail pointed at its own page", async () => {
    const w = world();
    await w.verifiedUser(TAKEN);
    browserOn(w.config);
    await requestPasswordReset(TAKEN);
    const mailed = new URL(w.lastMail(TAKEN, "resetPassword").url);
    vi.unstubAllGlobals();

    const page = browserOn(w.config, `${ORIGIN}/reset-password${mailed.search}`);
    const link = readPasswordResetLink();
    expect(link?.email).toBe(TAKEN);
    expect(
      await resetPassword({ token: link!.token, email: link!.email, password: NEW_PASSWORD }),
    ).toEqual({
      ok: true,
      url: ORIGIN,
    });
    expect(page.jar.cookies.get(SESSION)).toBeTruthy();

    vi.unstubAllGlobals();
    browserOn(w.config, `${ORIGIN}/reset-password?token=abc`);
    expect(readPasswordResetLink()).toBeNull();
  });

  test("a token that was never mailed is Verification", async () => {
    const w = world();
    await w.verifiedUser(TAKEN);
    browserOn(w.config);
    const error = await refusal(
      resetPassword({ token: "0".repeat(64), email: TAKEN, password: NEW_PASSWORD }),
    );
    expect(error).toMatchObject({ status: 400, error: "Verification" });
    expect(error.detail).toMatch(/no longer valid/);
    expect(textOf(error)).not.toContain(NEW_PASSWORD);
  });

  test("with resetCode, the mailed code and the address set the password; a wrong code is WrongCode", async () => {
    const w = world({ password: { resetCode: true } });
    await w.verifiedUser(TAKEN);
    const browser = browserOn(w.config);
    await requestPasswordReset(TAKEN);
    const { code } = w.lastMail(TAKEN, "resetPassword");
    expect(code).toBeTruthy();

    const wrong = await refusal(
      resetPassword({ email: TAKEN, code: "WRONG-CODE", password: NEW_PASSWORD }),
    );
    expect(wrong).toMatchObject({ status: 400, error: "WrongCode" });
    expect(textOf(wrong)).not.toContain(NEW_PASSWORD);

    const done = await resetPassword({ email: TAKEN, code: code!, password: NEW_PASSWORD });
    expect(done).toEqual({ ok: true, url: ORIGIN });
    const sent = JSON.parse(browser.sent.at(-1)!.body) as Record<string, unknown>;
    expect(Object.keys(sent).sort()).toEqual(["code", "csrfToken", "email", "password"]);
    expect(browser.jar.cookies.get(SESSION)).toBeTruthy();

    const again = await refusal(
      resetPassword({ email: TAKEN, code: code!, password: OTHER_PASSWORD }),
    );
    // Spent: the same answer as a wrong code.
    expect(again).toMatchObject({ status: 400, error: "WrongCode" });
  });

  test("over the per-address email limit: RateLimited with retryAfter", async () => {
    const w = world();
    browserOn(w.config);
    for (let i = 0; i < 3; i++) await requestPasswordReset(TAKEN);
    const error = await refusal(requestPasswordReset(TAKEN));
    expect(error).toMatchObject({ status: 429, error: "RateLimited" });
    expect(error.retryAfter).toBeGreaterThan(0);
  });
});

describe("changePassword", () => {
  test("changes the signed-in user's password; a wrong current one and the policy are refused, signed out is 401", async () => {
    const w = world();
    await w.verifiedUser(TAKEN);
    const browser = browserOn(w.config);

    const signedOut = await refusal(
      changePassword({ currentPassword: PASSWORD, newPassword: NEW_PASSWORD }),
    );
    expect(signedOut).toMatchObject({ status: 401, error: "Unauthenticated" });

    expect(
      (await signIn("password", { email: TAKEN, password: PASSWORD, redirect: false })).ok,
    ).toBe(true);
    const wrong = await refusal(
      changePassword({ currentPassword: OTHER_PASSWORD, newPassword: NEW_PASSWORD }),
    );
    expect(wrong).toMatchObject({ status: 400, error: "WrongPassword" });
    expect(wrong.detail).toBe("The current password is wrong.");
    const short = await refusal(
      changePassword({ currentPassword: PASSWORD, newPassword: "short one" }),
    );
    expect(short).toMatchObject({ status: 400, error: "PasswordTooShort" });
    for (const error of [signedOut, wrong, short]) {
      for (const secret of [PASSWORD, OTHER_PASSWORD, NEW_PASSWORD, "short one"]) {
        expect(textOf(error)).not.toContain(secret);
      }
    }

    const session = browser.jar.cookies.get(SESSION);
    const changed = await changePassword({ currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(changed).toEqual({
      ok: true,
      status: "passwordChanged",
      message: "Your password was changed, and every other browser was signed out.",
    });
    const posted = JSON.parse(browser.sent.at(-1)!.body) as Record<string, unknown>;
    expect(posted).toMatchObject({ currentPassword: PASSWORD, password: NEW_PASSWORD });
    expect(posted).not.toHaveProperty("newPassword");
    // This browser goes on, under a new session.
    expect(browser.jar.cookies.get(SESSION)).toBeTruthy();
    expect(browser.jar.cookies.get(SESSION)).not.toBe(session);
    expect(w.lastMail(TAKEN).kind).toBe("passwordChanged");

    await signOut({ redirect: false });
    const old = await signIn("password", { email: TAKEN, password: PASSWORD, redirect: false });
    expect(old.error).toBe("CredentialsSignin");
    const fresh = await signIn("password", {
      email: TAKEN,
      password: NEW_PASSWORD,
      redirect: false,
    });
    expect(fresh.ok).toBe(true);
  });
});
