/**
 * The signed-in user's account from `@gatehousejs/core/client`: `changeEmail`, `setPassword` and
 * `removePassword`, driven against a real `Auth()` handler with the password provider on the
 * memory adapter and its email captured. Refusals reject as `AuthRouteError` with the route's
 * stable error value and message, and no thrown error ever holds a password.
 */
import {
  AuthRouteError,
  changeEmail,
  configureClient,
  removePassword,
  setPassword,
  signIn,
  signOut,
} from "@gatehousejs/core/client";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { browserOn } from "./client-browser.js";
import { ORIGIN } from "./helpers.js";
import { OTHER_PASSWORD, PASSWORD, passwordWorld, type WorldOptions } from "./password-world.js";
import { formOf } from "./support/email-link.js";

const OWNER = "owner@example.com";
const MOVED = "moved@example.com";
const HELD = "grace@example.com";
const NEW_PASSWORD = "a brand new passphrase for me";
const SESSION = "authjs.session-token";

/** An app with the password provider under /api/auth, the client's default base path. */
function world(options: WorldOptions = {}) {
  return passwordWorld({ ...options, config: { basePath: "/api/auth", ...options.config } });
}

/** A browser signed in as OWNER, whose account has PASSWORD. */
async function signedIn(options: WorldOptions = {}) {
  const w = world(options);
  const user = await w.verifiedUser(OWNER);
  const browser = browserOn(w.config);
  const result = await signIn("password", { email: OWNER, password: PASSWORD, redirect: false });
  expect(result.ok).toBe(true);
  return { w, user, browser };
}

/** A browser signed in as OWNER, whose password was then voided (as after an OAuth sign-up). */
async function signedInWithoutPassword(options: WorldOptions = {}) {
  const found = await signedIn(options);
  await found.w.adapter.updateAccount({
    provider: "password",
    providerAccountId: found.user.id,
    passwordHash: null,
  });
  return found;
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
  vi.useRealTimers();
  vi.unstubAllGlobals();
  configureClient({});
});

describe("changeEmail", () => {
  test("mails the new address a link; confirmed on the route's page, the address changes, every session ends, and the new address signs in", async () => {
    const { w, browser } = await signedIn();

    const asked = await changeEmail({ newEmail: MOVED, currentPassword: PASSWORD });
    expect(asked).toEqual({
      ok: true,
      status: "emailChangeSent",
      message: "We sent a link to the new address: your address changes when it is used.",
    });
    expect(browser.sent.slice(-2).map((s) => `${s.method} ${s.url.pathname}`)).toEqual([
      "GET /api/auth/csrf",
      "POST /api/auth/change-email/password",
    ]);
    const posted = JSON.parse(browser.sent.at(-1)!.body) as Record<string, unknown>;
    expect(Object.keys(posted).sort()).toEqual(["csrfToken", "currentPassword", "email"]);
    expect(posted.email).toBe(MOVED);
    // Nothing changes at the request.
    expect(await w.adapter.getUserByEmail(OWNER)).toBeTruthy();
    expect(await w.adapter.getUserByEmail(MOVED)).toBeNull();

    const confirmed = await openAndConfirm(w.lastMail(MOVED, "changeEmail").url);
    expect(confirmed.status).toBe(200);
    expect(await w.adapter.getUserByEmail(OWNER)).toBeNull();
    expect((await w.adapter.getUserByEmail(MOVED))?.emailVerified).toBeInstanceOf(Date);
    expect(w.lastMail(OWNER).kind).toBe("emailChanged");
    // The browser that used the link is signed out too: its session is gone.
    expect(browser.jar.cookies.get(SESSION)).toBeTruthy();
    const session = await fetch(`${ORIGIN}/api/auth/session`);
    expect(await session.json()).toBeNull();

    const old = await signIn("password", { email: OWNER, password: PASSWORD, redirect: false });
    expect(old.error).toBe("CredentialsSignin");
    const fresh = await signIn("password", { email: MOVED, password: PASSWORD, redirect: false });
    expect(fresh.ok).toBe(true);
  });

  test("an address another user holds is answered like a free one; its owner gets no link", async () => {
    const { w } = await signedIn({ config: { rateLimit: { email: { perAddress: false } } } });
    await w.verifiedUser(HELD, OTHER_PASSWORD);
    const free = await changeEmail({ newEmail: MOVED, currentPassword: PASSWORD });
    const held = await changeEmail({ newEmail: HELD, currentPassword: PASSWORD });
    expect(held).toEqual(free);
    expect(w.lastMail(HELD).kind).toBe("changeEmailUnavailable");
    expect(w.mails.filter((m) => m.to === HELD && m.kind === "changeEmail")).toEqual([]);
    expect((await w.adapter.getUserByEmail(HELD))?.id).not.toBe(
      (await w.adapter.getUserByEmail(OWNER))?.id,
    );
  });

  test("a wrong current password is WrongPassword, a bad address InvalidEmail, the same one SameEmail, signed out is 401; no password in any error", async () => {
    const { w } = await signedIn();
    const wrong = await refusal(changeEmail({ newEmail: MOVED, currentPassword: OTHER_PASSWORD }));
    expect(wrong).toMatchObject({ status: 400, error: "WrongPassword" });
    expect(wrong.detail).toBe("The current password is wrong.");
    expect(wrong.message).toBe(
      "The auth route answered 400 (WrongPassword) to the email change: The current password is wrong.",
    );
    const invalid = await refusal(
      changeEmail({ newEmail: "not an address", currentPassword: PASSWORD }),
    );
    expect(invalid).toMatchObject({ status: 400, error: "InvalidEmail" });
    const same = await refusal(changeEmail({ newEmail: OWNER, currentPassword: PASSWORD }));
    expect(same).toMatchObject({ status: 400, error: "SameEmail" });
    await signOut({ redirect: false });
    const out = await refusal(changeEmail({ newEmail: MOVED, currentPassword: PASSWORD }));
    expect(out).toMatchObject({ status: 401, error: "Unauthenticated", detail: "Sign in first." });
    for (const error of [wrong, invalid, same, out]) {
      expect(textOf(error)).not.toContain(PASSWORD);
      expect(textOf(error)).not.toContain(OTHER_PASSWORD);
    }
    expect(w.mails.filter((m) => m.to === MOVED)).toEqual([]);
  });

  test("without a password: a recent sign-in is enough; an older one is ReauthenticationRequired", async () => {
    const { w, browser } = await signedInWithoutPassword();
    expect(await changeEmail({ newEmail: MOVED })).toMatchObject({ status: "emailChangeSent" });
    const posted = JSON.parse(browser.sent.at(-1)!.body) as Record<string, unknown>;
    expect(Object.keys(posted).sort()).toEqual(["csrfToken", "email"]);
    expect(w.lastMail(MOVED).kind).toBe("changeEmail");

    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 11 * 60_000 });
    const late = await refusal(changeEmail({ newEmail: "later@example.com" }));
    expect(late).toMatchObject({ status: 400, error: "ReauthenticationRequired" });
    expect(late.detail).toBe("Sign in again, then change your address within ten minutes.");
  });
});

describe("setPassword", () => {
  test("gives an account without a password one, which then signs in; this browser stays signed in", async () => {
    const { w, browser } = await signedInWithoutPassword();
    const short = await refusal(setPassword({ password: "too short" }));
    expect(short).toMatchObject({ status: 400, error: "PasswordTooShort" });
    expect(textOf(short)).not.toContain("too short");

    const set = await setPassword({ password: NEW_PASSWORD });
    expect(set).toEqual({
      ok: true,
      status: "passwordSet",
      message: "Your account now also signs in with its address and this password.",
    });
    expect(browser.sent.at(-1)!.url.pathname).toBe("/api/auth/set-password/password");
    expect(browser.jar.cookies.get(SESSION)).toBeTruthy();
    expect(w.lastMail(OWNER).kind).toBe("passwordSet");
    await signOut({ redirect: false });
    const fresh = await signIn("password", {
      email: OWNER,
      password: NEW_PASSWORD,
      redirect: false,
    });
    expect(fresh.ok).toBe(true);
  });

  test("an account with a password is PasswordExists; an old sign-in is ReauthenticationRequired; signed out is 401", async () => {
    await signedIn();
    const exists = await refusal(setPassword({ password: NEW_PASSWORD }));
    expect(exists).toMatchObject({ status: 400, error: "PasswordExists" });
    expect(exists.detail).toBe("This account has a password: change it instead.");
    expect(textOf(exists)).not.toContain(NEW_PASSWORD);
    await signOut({ redirect: false });
    const out = await refusal(setPassword({ password: NEW_PASSWORD }));
    expect(out).toMatchObject({ status: 401, error: "Unauthenticated" });

    vi.unstubAllGlobals();
    await signedInWithoutPassword();
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 11 * 60_000 });
    const late = await refusal(setPassword({ password: NEW_PASSWORD }));
    expect(late).toMatchObject({ status: 400, error: "ReauthenticationRequired" });
  });
});

describe("removePassword", () => {
  test("with another way in (a proven address and an email sign-in provider), removes it; this browser goes on under a new session", async () => {
    const { w, browser } = await signedIn({ emailSignIn: true });
    const session = browser.jar.cookies.get(SESSION);
    const removed = await removePassword({ currentPassword: PASSWORD });
    expect(removed).toEqual({
      ok: true,
      status: "passwordRemoved",
      message: "Your password was removed, and every other browser was signed out.",
    });
    const posted = JSON.parse(browser.sent.at(-1)!.body) as Record<string, unknown>;
    expect(Object.keys(posted).sort()).toEqual(["csrfToken", "currentPassword"]);
    expect(browser.jar.cookies.get(SESSION)).toBeTruthy();
    expect(browser.jar.cookies.get(SESSION)).not.toBe(session);
    expect(w.lastMail(OWNER).kind).toBe("passwordRemoved");
    await signOut({ redirect: false });
    const old = await signIn("password", { email: OWNER, password: PASSWORD, redirect: false });
    expect(old.ok).toBe(false);
  });

  test("the only way in is LastWayIn; a wrong password WrongPassword; none NoPassword; signed out is 401", async () => {
    await signedIn();
    const last = await refusal(removePassword({ currentPassword: PASSWORD }));
    expect(last).toMatchObject({ status: 400, error: "LastWayIn" });
    expect(last.detail).toBe(
      "The password is the only way your account signs in: add another way before removing it.",
    );
    const wrong = await refusal(removePassword({ currentPassword: OTHER_PASSWORD }));
    expect(wrong).toMatchObject({ status: 400, error: "WrongPassword" });
    for (const error of [last, wrong]) {
      expect(textOf(error)).not.toContain(PASSWORD);
      expect(textOf(error)).not.toContain(OTHER_PASSWORD);
    }
    await signOut({ redirect: false });
    const out = await refusal(removePassword({ currentPassword: PASSWORD }));
    expect(out).toMatchObject({ status: 401, error: "Unauthenticated" });

    vi.unstubAllGlobals();
    await signedInWithoutPassword({ emailSignIn: true });
    const none = await refusal(removePassword({ currentPassword: PASSWORD }));
    expect(none).toMatchObject({ status: 400, error: "NoPassword" });
  });

  test("strings only, refused before any request and without naming what was given", async () => {
    const w = world();
    const browser = browserOn(w.config);
    const secret = { toString: () => PASSWORD };
    await expect(removePassword({ currentPassword: secret as never })).rejects.toThrow(
      new TypeError("removePassword takes currentPassword as a string"),
    );
    await expect(setPassword({ password: 42 as never })).rejects.toThrow(TypeError);
    await expect(
      changeEmail({ newEmail: MOVED, currentPassword: secret as never }),
    ).rejects.toThrow(new TypeError("changeEmail takes currentPassword as a string"));
    await expect(changeEmail({ newEmail: null as never })).rejects.toThrow(TypeError);
    expect(browser.sent).toEqual([]);
  });
});
