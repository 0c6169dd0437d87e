/**
 * Two-factor sign-in from `@gatehousejs/core/client`: `twoFactorStatus`, `enrollTwoFactor`,
 * `confirmTwoFactor`, `regenerateBackupCodes`, `disableTwoFactor`, `verifyTwoFactor` (trusting
 * the browser too) and `forgetTrustedBrowser`, with
 * `signIn("password")` telling a sign-in held for its second factor, driven against a real
 * `Auth()` handler with the password provider and two-factor sign-in on the memory adapter. Codes
 * are computed from the secret the enrolment answered, with the clock moved a time step between
 * uses (a code is accepted once). Refusals reject as `AuthRouteError` with the route's stable
 * error value; bad input is refused before any request; no error holds a code or the secret.
 */

import {
  AuthRouteError,
  configureClient,
  confirmTwoFactor,
  createSessionSource,
  disableTwoFactor,
  enrollTwoFactor,
  type ForgetTrustedBrowserTarget,
  forgetTrustedBrowser,
  regenerateBackupCodes,
  type SecondFactor,
  signIn,
  signOut,
  twoFactorStatus,
  verifyTwoFactor,
} from "@gatehousejs/core/client";
import TwoFactor from "@gatehousejs/core/two-factor";
import type { AuthConfig } from "@gatehousejs/core/types";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { totpCode, totpStep } from "../src/lib/features/two-factor/totp.js";
import { browserOn } from "./client-browser.js";
import { ORIGIN } from "./helpers.js";
import { PASSWORD, passwordWorld } from "./password-world.js";

const OWNER = "owner@example.com";
const SESSION = "authjs.session-token";
const TRUST = "gatehouse.two-factor-trust";
const DAY = 86_400_000;
const CHALLENGE = `${ORIGIN}/api/auth/two-factor/challenge`;

/** An app with the password provider and two-factor sign-in under /api/auth. */
function world(config: Partial<AuthConfig> = {}) {
  return passwordWorld({ config: { basePath: "/api/auth", twoFactor: TwoFactor(), ...config } });
}

/** The next time step: each code is accepted once, so each use waits for a new one. */
function nextStep(): void {
  vi.setSystemTime(Date.now() + 30_000);
}

/** The code the authenticator app shows now. */
const codeNow = (secret: string) => totpCode(secret, totpStep());

/** A code of this step that is not `right`. */
const wrongCode = (right: string) => (right === "123456" ? "654321" : "123456");

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

/** Everything an error says about itself, where no code and no secret may appear. */
function textOf(error: Error): string {
  return [String(error), error.message, error.stack ?? "", JSON.stringify(error)].join("\n");
}

/** The paths the browser requested, as `METHOD /path`. */
const requests = (browser: ReturnType<typeof browserOn>) =>
  browser.sent.map((s) => `${s.method} ${s.url.pathname}`);

/** A user with a password, signed in in a browser, enrolled with the client, two-factor on. */
async function enrolled(config: Partial<AuthConfig> = {}) {
  const w = world(config);
  await w.verifiedUser(OWNER);
  const browser = browserOn(w.config);
  const first = await signIn("password", { email: OWNER, password: PASSWORD, redirect: false });
  expect(first.ok).toBe(true);
  const { secret } = await enrollTwoFactor();
  const { backupCodes } = await confirmTwoFactor(await codeNow(secret));
  nextStep();
  return { w, browser, secret, backupCodes };
}

/** Signs out, then in with the password: the sign-in the second factor holds. */
async function challenged(callbackUrl = "/account") {
  await signOut({ redirect: false });
  // A second passes, as between a person's sign-ins: a challenge issued in the same millisecond
  // as the last one finished counts as older than it, and is over.
  vi.setSystemTime(Date.now() + 1000);
  const held = await signIn("password", {
    email: OWNER,
    password: PASSWORD,
    redirect: false,
    callbackUrl,
  });
  expect(held.twoFactorRequired).toBe(true);
  return held;
}

/** Answers the challenge this browser holds with the next code, trusting the browser. */
async function trustThisBrowser(secret: string): Promise<void> {
  nextStep();
  await verifyTwoFactor({ code: await codeNow(secret) }, { redirect: false, trustBrowser: true });
  expect(await twoFactorStatus()).not.toBeNull();
}

/**
 * Whether a new browser holding only `trustCookie` is asked for the code after the password
 * (it becomes the browser the client sees).
 */
async function asksForCode(config: AuthConfig, trustCookie: string): Promise<boolean> {
  const browser = browserOn(config);
  browser.jar.cookies.set(TRUST, trustCookie);
  vi.setSystemTime(Date.now() + 1000);
  const result = await signIn("password", { email: OWNER, password: PASSWORD, redirect: false });
  expect(result.ok).toBe(true);
  return result.twoFactorRequired === true;
}

beforeEach(() => {
  configureClient({});
  vi.useFakeTimers({ toFake: ["Date"] });
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  configureClient({});
});

describe("the whole flow", () => {
  test("enrol, confirm, sign out, sign in held for the code, the code signs in", async () => {
    const w = world();
    await w.verifiedUser(OWNER);
    const browser = browserOn(w.config);

    // Before enrolment the password alone signs in, and says nothing of a second factor.
    const plain = await signIn("password", { email: OWNER, password: PASSWORD, redirect: false });
    expect(plain).toEqual({
      ok: true,
      error: undefined,
      code: undefined,
      status: 200,
      url: `${ORIGIN}/start`,
    });
    expect("twoFactorRequired" in plain).toBe(false);
    expect(await twoFactorStatus()).toEqual({
      enabled: false,
      backupCodesLeft: 0,
      trustedBrowsers: [],
    });

    browser.sent.length = 0;
    const enrolment = await enrollTwoFactor();
    expect(requests(browser)).toEqual(["GET /api/auth/csrf", "POST /api/auth/two-factor/enroll"]);
    expect(Object.keys(JSON.parse(browser.sent.at(-1)!.body) as object)).toEqual(["csrfToken"]);
    expect(enrolment).toMatchObject({ ok: true, status: "enrolmentStarted" });
    expect(enrolment.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(enrolment.uri).toMatch(/^otpauth:\/\/totp\/.*secret=/);
    expect(enrolment.qrSvg).toMatch(/^<svg/);
    // Pending: not on until the first code.
    expect(await twoFactorStatus()).toEqual({
      enabled: false,
      backupCodesLeft: 0,
      trustedBrowsers: [],
    });

    const code = await codeNow(enrolment.secret);
    browser.sent.length = 0;
    const enabled = await confirmTwoFactor(code);
    expect(requests(browser)).toEqual(["GET /api/auth/csrf", "POST /api/auth/two-factor/confirm"]);
    const posted = JSON.parse(browser.sent.at(-1)!.body) as Record<string, unknown>;
    expect(posted).toEqual({ code, csrfToken: expect.any(String) });
    expect(enabled.ok).toBe(true);
    expect(enabled.status).toBe("twoFactorEnabled");
    expect(enabled.backupCodes).toHaveLength(10);
    expect(new Set(enabled.backupCodes).size).toBe(10);
    expect(await twoFactorStatus()).toEqual({
      enabled: true,
      backupCodesLeft: 10,
      trustedBrowsers: [],
    });

    await signOut({ redirect: false });
    expect(await twoFactorStatus()).toBeNull();

    // The password is right, but no session: the sign-in waits on the challenge.
    const source = createSessionSource();
    const stop = source.follow();
    await vi.waitFor(() => expect(source.current()).toBeNull());
    const sessionReads = () => requests(browser).filter((r) => r === "GET /api/auth/session");
    const readsBefore = sessionReads().length;
    const held = await signIn("password", {
      email: OWNER,
      password: PASSWORD,
      redirect: false,
      callbackUrl: "/account",
    });
    expect(held).toEqual({
      ok: true,
      error: undefined,
      code: undefined,
      status: 200,
      url: CHALLENGE,
      twoFactorRequired: true,
    });
    expect(browser.jar.cookies.get(SESSION)).toBeUndefined();
    expect(sessionReads()).toHaveLength(readsBefore);
    expect(await source.refetch()).toBeNull();
    expect(source.current()).toBeNull();
    expect(await twoFactorStatus()).toBeNull();

    // The enrolment's code is spent; the next one finishes the sign-in.
    const reused = await refusal(verifyTwoFactor({ code }, { redirect: false }));
    expect(reused).toMatchObject({ status: 400, error: "WrongCode" });
    nextStep();
    browser.sent.length = 0;
    const done = await verifyTwoFactor(
      { code: await codeNow(enrolment.secret) },
      { redirect: false },
    );
    expect(done).toEqual({ ok: true, url: `${ORIGIN}/account` });
    expect(requests(browser).slice(0, 2)).toEqual([
      "GET /api/auth/csrf",
      "POST /api/auth/two-factor/challenge",
    ]);
    expect(browser.navigations).toEqual([]);
    expect(browser.jar.cookies.get(SESSION)).toBeTruthy();
    await vi.waitFor(() => expect(source.current()?.user?.email).toBe(OWNER));
    expect(await twoFactorStatus()).toEqual({
      enabled: true,
      backupCodesLeft: 10,
      trustedBrowsers: [],
    });
    stop();
  });

  test("by default signIn goes to the challenge page and verifyTwoFactor to where the sign-in was headed", async () => {
    const { browser, secret } = await enrolled();
    await signOut({ redirect: false });
    const navigated = await signIn("password", {
      email: OWNER,
      password: PASSWORD,
      callbackUrl: "/dashboard",
    });
    expect(navigated).toBeUndefined();
    expect(browser.navigations.at(-1)).toBe(CHALLENGE);
    expect(browser.jar.cookies.get(SESSION)).toBeUndefined();

    const answered = await verifyTwoFactor({ code: await codeNow(secret) });
    expect(answered).toBeUndefined();
    expect(browser.navigations.at(-1)).toBe(`${ORIGIN}/dashboard`);
    expect(browser.jar.cookies.get(SESSION)).toBeTruthy();
  });

  test("a custom base path is used for every call", async () => {
    const w = passwordWorld({ config: { basePath: "/auth", twoFactor: TwoFactor() } });
    await w.verifiedUser(OWNER);
    const browser = browserOn(w.config);
    configureClient({ basePath: "/auth" });
    await signIn("password", { email: OWNER, password: PASSWORD, redirect: false });
    const { secret } = await enrollTwoFactor();
    await confirmTwoFactor(await codeNow(secret));
    expect(await twoFactorStatus()).toEqual({
      enabled: true,
      backupCodesLeft: 10,
      trustedBrowsers: [],
    });
    await signOut({ redirect: false });
    const held = await signIn("password", { email: OWNER, password: PASSWORD, redirect: false });
    expect(held).toMatchObject({
      ok: true,
      twoFactorRequired: true,
      url: `${ORIGIN}/auth/two-factor/challenge`,
    });
    nextStep();
    await verifyTwoFactor({ code: await codeNow(secret) }, { redirect: false });
    expect(await w.signedInAs(browser.jar)).toBe(OWNER);
    expect(browser.sent.every((s) => s.url.pathname.startsWith("/auth/"))).toBe(true);
  });
});

describe("backup codes", () => {
  test("a backup code finishes one sign-in, once", async () => {
    const { browser, backupCodes } = await enrolled();
    const backupCode = backupCodes[2]!;
    await challenged();
    const done = await verifyTwoFactor({ backupCode }, { redirect: false });
    expect(done).toEqual({ ok: true, url: `${ORIGIN}/account` });
    expect(browser.jar.cookies.get(SESSION)).toBeTruthy();
    expect(await twoFactorStatus()).toEqual({
      enabled: true,
      backupCodesLeft: 9,
      trustedBrowsers: [],
    });

    await challenged();
    const again = await refusal(verifyTwoFactor({ backupCode }, { redirect: false }));
    expect(again).toMatchObject({ status: 400, error: "WrongCode" });
    expect(again.detail).toBe("That backup code is wrong or was used already.");
    expect(textOf(again)).not.toContain(backupCode);
    expect(browser.jar.cookies.get(SESSION)).toBeUndefined();
  });

  test("regenerating needs a code and voids every old backup code", async () => {
    const { browser, secret, backupCodes } = await enrolled();
    const right = await codeNow(secret);
    const wrong = await refusal(regenerateBackupCodes(wrongCode(right)));
    expect(wrong).toMatchObject({ status: 400, error: "WrongCode" });
    expect(textOf(wrong)).not.toContain(wrongCode(right));

    browser.sent.length = 0;
    const fresh = await regenerateBackupCodes(right);
    expect(requests(browser)).toEqual([
      "GET /api/auth/csrf",
      "POST /api/auth/two-factor/backup-codes",
    ]);
    expect(fresh.ok).toBe(true);
    expect(fresh.status).toBe("backupCodesRegenerated");
    expect(fresh.backupCodes).toHaveLength(10);
    expect(fresh.backupCodes.some((code) => backupCodes.includes(code))).toBe(false);

    await challenged();
    const old = await refusal(
      verifyTwoFactor({ backupCode: backupCodes[0]! }, { redirect: false }),
    );
    expect(old.error).toBe("WrongCode");
    await verifyTwoFactor({ backupCode: fresh.backupCodes[0]! }, { redirect: false });
    expect(await twoFactorStatus()).toEqual({
      enabled: true,
      backupCodesLeft: 9,
      trustedBrowsers: [],
    });
  });
});

describe("turning it off", () => {
  test("with a code: afterwards the password alone signs in", async () => {
    const { browser, secret } = await enrolled();
    const right = await codeNow(secret);
    const wrong = await refusal(disableTwoFactor({ code: wrongCode(right) }));
    expect(wrong).toMatchObject({ status: 400, error: "WrongCode" });
    expect(await twoFactorStatus()).toEqual({
      enabled: true,
      backupCodesLeft: 10,
      trustedBrowsers: [],
    });

    browser.sent.length = 0;
    const off = await disableTwoFactor({ code: right });
    expect(requests(browser)).toEqual(["GET /api/auth/csrf", "POST /api/auth/two-factor/disable"]);
    expect(off).toEqual({
      ok: true,
      status: "twoFactorDisabled",
      message: "Two-factor sign-in is off.",
    });
    expect(await twoFactorStatus()).toEqual({
      enabled: false,
      backupCodesLeft: 0,
      trustedBrowsers: [],
    });
    const again = await refusal(disableTwoFactor({ code: right }));
    expect(again).toMatchObject({ status: 400, error: "NoTwoFactor" });

    await signOut({ redirect: false });
    const plain = await signIn("password", { email: OWNER, password: PASSWORD, redirect: false });
    expect(plain.ok).toBe(true);
    expect(plain.twoFactorRequired).toBeUndefined();
    expect(browser.jar.cookies.get(SESSION)).toBeTruthy();
  });

  test("with a backup code, sent as backupCode", async () => {
    const { browser, backupCodes } = await enrolled();
    const off = await disableTwoFactor({ backupCode: backupCodes[5]! });
    expect(off.status).toBe("twoFactorDisabled");
    const posted = JSON.parse(browser.sent.at(-1)!.body) as Record<string, unknown>;
    expect(Object.keys(posted).sort()).toEqual(["backupCode", "csrfToken"]);
    expect(await twoFactorStatus()).toEqual({
      enabled: false,
      backupCodesLeft: 0,
      trustedBrowsers: [],
    });
  });
});

describe("refusals", () => {
  test("signed out: the account calls are Unauthenticated (401), the status is null", async () => {
    const w = world();
    browserOn(w.config);
    expect(await twoFactorStatus()).toBeNull();
    for (const call of [
      () => enrollTwoFactor(),
      () => confirmTwoFactor("123456"),
      () => regenerateBackupCodes("123456"),
      () => disableTwoFactor({ code: "123456" }),
    ]) {
      const error = await refusal(call());
      expect(error).toMatchObject({ status: 401, error: "Unauthenticated" });
      expect(error.detail).toBe("Sign in first.");
    }
  });

  test("confirming before enrolling, enrolling twice, and enrolling long after signing in", async () => {
    const w = world();
    await w.verifiedUser(OWNER);
    browserOn(w.config);
    await signIn("password", { email: OWNER, password: PASSWORD, redirect: false });
    const early = await refusal(confirmTwoFactor("123456"));
    expect(early).toMatchObject({ status: 400, error: "NoEnrolment" });

    const { secret } = await enrollTwoFactor();
    const code = await codeNow(secret);
    const wrong = await refusal(confirmTwoFactor(wrongCode(code)));
    expect(wrong).toMatchObject({ status: 400, error: "WrongCode" });
    await confirmTwoFactor(code);
    const twice = await refusal(enrollTwoFactor());
    expect(twice).toMatchObject({ status: 400, error: "TwoFactorEnabled" });
    const confirmedTwice = await refusal(confirmTwoFactor(code));
    expect(confirmedTwice).toMatchObject({ status: 400, error: "TwoFactorEnabled" });

    // Eleven minutes later the session goes on, but enrolling needs a fresh sign-in.
    const v = world();
    await v.verifiedUser(OWNER);
    browserOn(v.config);
    await signIn("password", { email: OWNER, password: PASSWORD, redirect: false });
    vi.setSystemTime(Date.now() + 11 * 60_000);
    const stale = await refusal(enrollTwoFactor());
    expect(stale).toMatchObject({ status: 403, error: "ReauthenticationRequired" });
    expect(stale.detail).toMatch(/^Sign in again/);
  });

  test("the challenge: no challenge held, wrong codes, then over after five", async () => {
    const { browser, secret } = await enrolled();
    // Signed in, no sign-in held: nothing to answer.
    const none = await refusal(verifyTwoFactor({ code: "123456" }, { redirect: false }));
    expect(none).toMatchObject({ status: 400, error: "TwoFactorChallengeExpired" });

    await challenged();
    const right = await codeNow(secret);
    for (let i = 0; i < 5; i++) {
      const error = await refusal(verifyTwoFactor({ code: wrongCode(right) }, { redirect: false }));
      expect(error).toMatchObject({ status: 400, error: "WrongCode" });
      expect(error.detail).toMatch(/^That code is wrong/);
    }
    const over = await refusal(verifyTwoFactor({ code: right }, { redirect: false }));
    expect(over).toMatchObject({ status: 400, error: "TwoFactorChallengeExpired" });
    expect(browser.jar.cookies.get(SESSION)).toBeUndefined();
    expect(browser.navigations).toEqual([]);

    // The first factor again, and the right code.
    await challenged();
    await verifyTwoFactor({ code: right }, { redirect: false });
    expect(browser.jar.cookies.get(SESSION)).toBeTruthy();
  });

  test("too many codes from one client address are RateLimited (429) with retryAfter", async () => {
    const { secret } = await enrolled({
      twoFactor: TwoFactor({ maxAttempts: 1 }),
      clientAddress: () => "203.0.113.9",
    });
    const right = await codeNow(secret);
    // One try was the confirmation; three per user and address in all.
    for (let i = 0; i < 2; i++) {
      const error = await refusal(regenerateBackupCodes(wrongCode(right)));
      expect(error.error).toBe("WrongCode");
    }
    const limited = await refusal(regenerateBackupCodes(right));
    expect(limited).toMatchObject({ status: 429, error: "RateLimited" });
    expect(limited.retryAfter).toBeGreaterThan(0);
    expect(await twoFactorStatus()).toEqual({
      enabled: true,
      backupCodesLeft: 10,
      trustedBrowsers: [],
    });
  });

  test("no error names a code, a backup code or the secret", async () => {
    const { secret, backupCodes } = await enrolled();
    const right = await codeNow(secret);
    const errors: Error[] = [];
    const collect = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (error: Error) => {
          errors.push(error);
        },
      );
    await collect(confirmTwoFactor(right));
    await collect(regenerateBackupCodes(wrongCode(right)));
    await collect(disableTwoFactor({ code: wrongCode(right) }));
    await collect(disableTwoFactor({ backupCode: `${backupCodes[0]}x` }));
    await challenged();
    await collect(verifyTwoFactor({ code: wrongCode(right) }, { redirect: false }));
    await collect(verifyTwoFactor({ backupCode: `${backupCodes[1]}x` }, { redirect: false }));
    await collect(verifyTwoFactor({ code: 123456 as unknown as string }));
    await collect(confirmTwoFactor({ secret } as unknown as string));
    expect(errors).toHaveLength(8);
    const seen = errors.map(textOf).join("\n");
    for (const value of [secret, right, wrongCode(right), "123456", ...backupCodes]) {
      expect(seen).not.toContain(value);
    }
  });
});

describe("trusted browsers", () => {
  test("trustBrowser: true lists this browser, with its dates as ISO strings, and its next sign-in skips the challenge", async () => {
    const { browser, secret } = await enrolled();
    // Without trustBrowser (or with false) nothing is sent and nothing is trusted.
    await challenged();
    await verifyTwoFactor(
      { code: await codeNow(secret) },
      { redirect: false, trustBrowser: false },
    );
    expect(Object.keys(JSON.parse(browser.sent.at(-1)!.body) as object).sort()).toEqual([
      "code",
      "csrfToken",
    ]);
    expect(browser.jar.cookies.get(TRUST)).toBeUndefined();
    expect((await twoFactorStatus())?.trustedBrowsers).toEqual([]);

    await challenged();
    nextStep();
    const at = Date.now();
    browser.sent.length = 0;
    const done = await verifyTwoFactor(
      { code: await codeNow(secret) },
      { redirect: false, trustBrowser: true },
    );
    expect(done).toEqual({ ok: true, url: `${ORIGIN}/account` });
    expect(requests(browser)).toEqual([
      "GET /api/auth/csrf",
      "POST /api/auth/two-factor/challenge",
    ]);
    const posted = JSON.parse(browser.sent.at(-1)!.body) as Record<string, unknown>;
    expect(posted).toEqual({
      code: expect.any(String),
      trustBrowser: true,
      csrfToken: expect.any(String),
    });
    const trust = browser.jar.cookies.get(TRUST);
    expect(trust).toBeTruthy();

    const status = await twoFactorStatus();
    expect(status).toEqual({
      enabled: true,
      backupCodesLeft: 10,
      trustedBrowsers: [
        {
          id: expect.stringMatching(/^[0-9a-f]{32}$/),
          client: "Unknown client",
          createdAt: new Date(at).toISOString(),
          expiresAt: new Date(at + 30 * DAY).toISOString(),
          current: true,
        },
      ],
    });
    expect(Object.keys(status!.trustedBrowsers[0]!).sort()).toEqual([
      "client",
      "createdAt",
      "current",
      "expiresAt",
      "id",
    ]);
    expect(JSON.stringify(status)).not.toContain(trust!);

    // Trusted: the password alone signs in again in this browser.
    await signOut({ redirect: false });
    vi.setSystemTime(Date.now() + 1000);
    const again = await signIn("password", { email: OWNER, password: PASSWORD, redirect: false });
    expect(again.ok).toBe(true);
    expect(again.twoFactorRequired).toBeUndefined();
    expect(browser.jar.cookies.get(SESSION)).toBeTruthy();
  });

  test("forgetTrustedBrowser({ id }) forgets another browser, or this one (its cookie cleared)", async () => {
    const { w, browser: first, secret } = await enrolled();
    await challenged();
    await trustThisBrowser(secret);
    const firstTrust = first.jar.cookies.get(TRUST);
    expect(firstTrust).toBeTruthy();
    const [firstEntry] = (await twoFactorStatus())!.trustedBrowsers;
    expect(firstEntry?.current).toBe(true);

    // A second browser of the same user, a second later, trusted as well: it lists both, itself
    // first.
    vi.setSystemTime(Date.now() + 1000);
    const second = browserOn(w.config);
    const held = await signIn("password", { email: OWNER, password: PASSWORD, redirect: false });
    expect(held.twoFactorRequired).toBe(true);
    await trustThisBrowser(secret);
    const secondTrust = second.jar.cookies.get(TRUST);
    const both = (await twoFactorStatus())!.trustedBrowsers;
    expect(both.map((entry) => [entry.id === firstEntry!.id, entry.current])).toEqual([
      [false, true],
      [true, false],
    ]);

    second.sent.length = 0;
    const other = await forgetTrustedBrowser({ id: firstEntry!.id });
    expect(requests(second)).toEqual([
      "GET /api/auth/csrf",
      "POST /api/auth/two-factor/forget-browser",
    ]);
    expect(JSON.parse(second.sent.at(-1)!.body)).toEqual({
      id: firstEntry!.id,
      csrfToken: expect.any(String),
    });
    expect(other).toEqual({
      ok: true,
      status: "trustedBrowserForgotten",
      message: "That browser will be asked for a code again.",
      trustedBrowsers: [both[0]],
    });
    // Another browser was forgotten: this one keeps its trust cookie, and its session.
    expect(second.jar.cookies.get(TRUST)).toBe(secondTrust);
    expect(await twoFactorStatus()).not.toBeNull();

    const own = await forgetTrustedBrowser({ id: both[0]!.id });
    expect(own).toMatchObject({ status: "trustedBrowserForgotten", trustedBrowsers: [] });
    expect(second.jar.cookies.get(TRUST)).toBeUndefined();
    expect(await twoFactorStatus()).not.toBeNull();
    await challenged();

    // The first browser's cookie no longer skips the challenge either.
    expect(await asksForCode(w.config, firstTrust!)).toBe(true);
  });

  test("forgetTrustedBrowser({ all: true }) forgets every one at once", async () => {
    const { w, browser: first, secret } = await enrolled();
    await challenged();
    await trustThisBrowser(secret);
    const firstTrust = first.jar.cookies.get(TRUST)!;
    // The cookie is what skips the challenge: with it another jar skips it too, before the forget.
    expect(await asksForCode(w.config, firstTrust)).toBe(false);

    const second = browserOn(w.config);
    await signIn("password", { email: OWNER, password: PASSWORD, redirect: false });
    await trustThisBrowser(secret);
    expect((await twoFactorStatus())!.trustedBrowsers).toHaveLength(2);

    const all = await forgetTrustedBrowser({ all: true });
    expect(JSON.parse(second.sent.at(-1)!.body)).toEqual({
      all: true,
      csrfToken: expect.any(String),
    });
    expect(all).toEqual({
      ok: true,
      status: "trustedBrowsersForgotten",
      message: "No browser skips the code any more.",
      trustedBrowsers: [],
    });
    expect(second.jar.cookies.get(TRUST)).toBeUndefined();
    expect((await twoFactorStatus())?.trustedBrowsers).toEqual([]);
    await challenged();
    expect(await asksForCode(w.config, firstTrust)).toBe(true);
  });

  test("refusals: InvalidTrustedBrowser (400), UnknownTrustedBrowser (404), Unauthenticated (401)", async () => {
    const { secret } = await enrolled();
    const invalid = await refusal(forgetTrustedBrowser({ id: "not-a-browser-id" }));
    expect(invalid).toMatchObject({ status: 400, error: "InvalidTrustedBrowser" });
    expect(invalid.detail).toBe("Say which browser to forget.");
    const unknown = await refusal(forgetTrustedBrowser({ id: "0".repeat(32) }));
    expect(unknown).toMatchObject({ status: 404, error: "UnknownTrustedBrowser" });
    expect(unknown.detail).toBe("That browser is not trusted.");

    await challenged();
    await verifyTwoFactor({ code: await codeNow(secret) }, { redirect: false, trustBrowser: true });
    const [entry] = (await twoFactorStatus())!.trustedBrowsers;
    await forgetTrustedBrowser({ id: entry!.id });
    const twice = await refusal(forgetTrustedBrowser({ id: entry!.id }));
    expect(twice).toMatchObject({ status: 404, error: "UnknownTrustedBrowser" });

    await signOut({ redirect: false });
    for (const target of [{ id: entry!.id }, { all: true }] as const) {
      const signedOut = await refusal(forgetTrustedBrowser(target));
      expect(signedOut).toMatchObject({ status: 401, error: "Unauthenticated" });
      expect(signedOut.detail).toBe("Sign in first.");
    }
  });
});

describe("bad input", () => {
  test("is a TypeError before any request", async () => {
    const w = world();
    const browser = browserOn(w.config);
    const proofs: unknown[] = [
      undefined,
      null,
      "123456",
      {},
      { code: 123456 },
      { backupCode: ["k7m2p-x9ad4"] },
      { code: "123456", backupCode: "k7m2p-x9ad4" },
      { code: null },
    ];
    for (const proof of proofs) {
      const label = JSON.stringify(proof) ?? "undefined";
      await expect(verifyTwoFactor(proof as SecondFactor), label).rejects.toThrow(
        new TypeError("verifyTwoFactor takes { code } or { backupCode }, as a string"),
      );
      await expect(disableTwoFactor(proof as SecondFactor), label).rejects.toThrow(
        new TypeError("disableTwoFactor takes { code } or { backupCode }, as a string"),
      );
    }
    for (const code of [undefined, null, 123456, ["123456"], { code: "123456" }]) {
      await expect(confirmTwoFactor(code as unknown as string)).rejects.toThrow(
        new TypeError("confirmTwoFactor takes the code as a string"),
      );
      await expect(regenerateBackupCodes(code as unknown as string)).rejects.toThrow(
        new TypeError("regenerateBackupCodes takes the code as a string"),
      );
    }
    expect(browser.sent).toEqual([]);
    expect(browser.navigations).toEqual([]);
  });

  test("forgetTrustedBrowser takes { id } or { all: true }, verifyTwoFactor trustBrowser as a boolean", async () => {
    const w = world();
    const browser = browserOn(w.config);
    const targets: unknown[] = [
      undefined,
      null,
      "0".repeat(32),
      {},
      { id: "" },
      { id: 7 },
      { all: false },
      { all: "true" },
      { id: "0".repeat(32), all: true },
    ];
    for (const target of targets) {
      await expect(
        forgetTrustedBrowser(target as ForgetTrustedBrowserTarget),
        JSON.stringify(target) ?? "undefined",
      ).rejects.toThrow(new TypeError("forgetTrustedBrowser takes { id } or { all: true }"));
    }
    for (const trustBrowser of ["true", 1, null]) {
      await expect(
        verifyTwoFactor({ code: "123456" }, { trustBrowser: trustBrowser as unknown as boolean }),
      ).rejects.toThrow(new TypeError("verifyTwoFactor takes trustBrowser as a boolean"));
    }
    expect(browser.sent).toEqual([]);
  });
});
