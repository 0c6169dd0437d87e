/**
 * Two-factor sign-in from the app's own pages (docs/two-factor.md): whether it is on, enrolment
 * (a secret to scan, then a first code that turns it on), new backup codes, turning it off, the
 * challenge that finishes a sign-in held for the second factor, and the trusted browsers that
 * skip it. Each POST fetches the CSRF
 * token, posts JSON to `<basePath>/two-factor/<route>` and turns a refusal into an
 * {@link AuthRouteError} with the route's stable `error` and what it tells the user (`detail`).
 * Codes, backup codes and the secret travel in request and answer bodies only: nothing here logs,
 * keeps or reports one.
 */
import { basePathOf } from "./base-path.js";
import { type AuthRouteError, refusalOf, retryAfterOf } from "./errors.js";
import { navigate, sessionChanged } from "./transport.js";
import { type TrustedBrowser, trustedBrowsersOf } from "./trusted-browsers.js";
import { postTwoFactor, type TwoFactorRouteOptions } from "./two-factor-route.js";

export {
  type ForgetTrustedBrowserTarget,
  forgetTrustedBrowser,
  type TrustedBrowser,
  type TrustedBrowserForgotten,
} from "./trusted-browsers.js";
export type { TwoFactorRouteOptions } from "./two-factor-route.js";

/** Options of {@link verifyTwoFactor}. */
export interface VerifyTwoFactorOptions extends TwoFactorRouteOptions {
  /**
   * `false`: stay on the page and resolve with where the server would send the browser.
   * Default `true`: navigate there (the `callbackUrl` of the sign-in the challenge finishes).
   */
  redirect?: boolean;
  /**
   * `true`: with the right code, trust this browser ("don't ask again on this browser for 30
   * days"): its later sign-ins of this user skip the challenge until it is forgotten
   * ({@link forgetTrustedBrowser}), the 30 days end, two-factor sign-in is turned off, or the
   * password is reset, changed or removed. Default `false`. Offer it only on the user's own
   * device.
   */
  trustBrowser?: boolean;
}

/** What {@link twoFactorStatus} resolves to for a signed-in user. */
export interface TwoFactorStatus {
  /** Whether sign-ins of this user ask for a second factor. */
  enabled: boolean;
  /** How many unused backup codes the user has (0 while it is off). */
  backupCodesLeft: number;
  /** The user's unexpired trusted browsers, newest first (none while it is off). */
  trustedBrowsers: TrustedBrowser[];
}

/**
 * A second factor, as the user typed it: a code from the authenticator app, or one of the
 * backup codes.
 */
export type SecondFactor =
  | { code: string; backupCode?: undefined }
  | { backupCode: string; code?: undefined };

/** What {@link enrollTwoFactor} resolves to: a pending enrolment, not on until confirmed. */
export interface TwoFactorEnrolment {
  ok: true;
  status: "enrolmentStarted";
  /** The secret in base32, for typing into the app by hand. Show it; do not store it. */
  secret: string;
  /** The `otpauth://` URI the QR code holds (for a link on a phone). */
  uri: string;
  /** The QR code of `uri`, as an SVG element's markup, made by the server. */
  qrSvg: string;
}

/** What {@link confirmTwoFactor} and {@link regenerateBackupCodes} resolve to. */
export interface BackupCodesIssued<Status extends string> {
  ok: true;
  status: Status;
  /** The backup codes, shown once: the server keeps only their hashes. */
  backupCodes: string[];
}

/** What {@link confirmTwoFactor} resolves to: it is on. */
export type TwoFactorEnabled = BackupCodesIssued<"twoFactorEnabled">;

/** What {@link regenerateBackupCodes} resolves to: the old codes no longer work. */
export type BackupCodesRegenerated = BackupCodesIssued<"backupCodesRegenerated">;

/** What {@link disableTwoFactor} resolves to. */
export interface TwoFactorDisabled {
  ok: true;
  status: "twoFactorDisabled";
  /** What to tell the user, written by the server. */
  message: string;
}

/** What {@link verifyTwoFactor} resolves to with `redirect: false`: the browser is signed in. */
export interface TwoFactorVerified {
  ok: true;
  /** Where the server sends the browser next. The call does not navigate: `location.assign(url)` does. */
  url: string;
}

/** Refuses, before any request, a code that is not a string (never naming what was given). */
function requireCode(call: string, code: unknown): string {
  if (typeof code !== "string") throw new TypeError(`${call} takes the code as a string`);
  return code;
}

/** `{ code }` or `{ backupCode }`, as a string; anything else is refused before any request. */
function secondFactorOf(call: string, proof: unknown): { code: string } | { backupCode: string } {
  if (typeof proof === "object" && proof !== null) {
    const { code, backupCode } = proof as { code?: unknown; backupCode?: unknown };
    if (typeof code === "string" && backupCode === undefined) return { code };
    if (typeof backupCode === "string" && code === undefined) return { backupCode };
  }
  throw new TypeError(`${call} takes { code } or { backupCode }, as a string`);
}

/** The answer's backup codes, when `body` is the answer expected. */
function codesOf<Status extends string>(
  body: Record<string, unknown>,
  status: Status,
  what: string,
): BackupCodesIssued<Status> {
  const { backupCodes } = body;
  if (
    body.status !== status ||
    !Array.isArray(backupCodes) ||
    !backupCodes.every((code) => typeof code === "string")
  ) {
    throw new Error(`The auth route's answer ${what} is not one the client knows`);
  }
  return { ok: true, status, backupCodes };
}

/**
 * Whether the signed-in user has two-factor sign-in on, how many backup codes are left and
 * which browsers skip the challenge (`GET <basePath>/two-factor`); `null` when nobody is signed
 * in. The trusted browsers' dates are ISO 8601 strings, as the server sends them.
 *
 * @example
 * ```ts
 * import { twoFactorStatus } from "@gatehousejs/core/client";
 *
 * const status = await twoFactorStatus();
 * if (status?.enabled && status.backupCodesLeft < 3) console.log("Make new backup codes");
 * for (const browser of status?.trustedBrowsers ?? []) {
 *   console.log(browser.client, "trusted until", new Date(browser.expiresAt).toLocaleDateString());
 * }
 * ```
 */
export async function twoFactorStatus(
  options: TwoFactorRouteOptions = {},
): Promise<TwoFactorStatus | null> {
  const response = await fetch(`${basePathOf(options.basePath)}/two-factor`, {
    headers: { Accept: "application/json" },
    credentials: "same-origin",
  });
  const parsed: unknown = await response.json().catch(() => null);
  const body = (typeof parsed === "object" && parsed !== null ? parsed : {}) as Record<
    string,
    unknown
  >;
  if (response.status === 401) return null;
  if (!response.ok) {
    const answer = { status: response.status, retryAfter: retryAfterOf(response, body) };
    throw refusalOf("for the two-factor status", answer, body);
  }
  const { enabled, backupCodesLeft } = body;
  const trustedBrowsers = trustedBrowsersOf(body.trustedBrowsers);
  if (
    typeof enabled !== "boolean" ||
    typeof backupCodesLeft !== "number" ||
    trustedBrowsers === undefined
  ) {
    throw new Error("The auth route's two-factor status is not one the client knows");
  }
  return { enabled, backupCodesLeft, trustedBrowsers };
}

/**
 * Starts an enrolment for the signed-in user (`POST <basePath>/two-factor/enroll`): a new secret,
 * its `otpauth://` URI and a QR code to show. Nothing is on yet: {@link confirmTwoFactor} with the
 * first code the app shows turns it on. Starting again replaces a pending secret.
 *
 * Rejects with an {@link AuthRouteError}: `ReauthenticationRequired` (403) when the sign-in is
 * older than ten minutes (sign in again, then enrol), `TwoFactorEnabled` when it is on already,
 * `Unauthenticated` (401) when nobody is signed in.
 *
 * @example
 * ```ts
 * import { enrollTwoFactor } from "@gatehousejs/core/client";
 *
 * const { qrSvg, secret } = await enrollTwoFactor();
 * document.querySelector("#qr")!.innerHTML = qrSvg; // made by your auth route
 * document.querySelector("#secret")!.textContent = secret;
 * ```
 */
export async function enrollTwoFactor(
  options: TwoFactorRouteOptions = {},
): Promise<TwoFactorEnrolment> {
  const what = "to the two-factor enrolment";
  const body = await postTwoFactor("enroll", what, options);
  const { secret, uri, qrSvg } = body;
  if (
    body.status !== "enrolmentStarted" ||
    typeof secret !== "string" ||
    typeof uri !== "string" ||
    typeof qrSvg !== "string"
  ) {
    throw new Error(`The auth route's answer ${what} is not one the client knows`);
  }
  return { ok: true, status: "enrolmentStarted", secret, uri, qrSvg };
}

/**
 * Turns two-factor sign-in on with the first code the authenticator app shows
 * (`POST <basePath>/two-factor/confirm`), after {@link enrollTwoFactor}. Resolves with the backup
 * codes, shown this once. The code is spent: it does not open a sign-in afterwards.
 *
 * Rejects with an {@link AuthRouteError}: `WrongCode` (check the phone's clock, try the next
 * code), `NoEnrolment` (enrol first), `TwoFactorEnabled`, `RateLimited` (with `retryAfter`),
 * `Unauthenticated` (401).
 *
 * @example
 * ```ts
 * import { confirmTwoFactor } from "@gatehousejs/core/client";
 *
 * const { backupCodes } = await confirmTwoFactor("123456");
 * console.table(backupCodes); // show them once; ask the user to keep them safe
 * ```
 */
export async function confirmTwoFactor(
  code: string,
  options: TwoFactorRouteOptions = {},
): Promise<TwoFactorEnabled> {
  const fields = { code: requireCode("confirmTwoFactor", code) };
  const what = "to the two-factor confirmation";
  return codesOf(await postTwoFactor("confirm", what, options, fields), "twoFactorEnabled", what);
}

/**
 * Makes a new set of backup codes for the signed-in user, with a code from the app
 * (`POST <basePath>/two-factor/backup-codes`); every old backup code stops working. Resolves with
 * the new codes, shown this once.
 *
 * Rejects with an {@link AuthRouteError}: `WrongCode`, `NoTwoFactor` (it is off), `RateLimited`,
 * `Unauthenticated` (401).
 *
 * @example
 * ```ts
 * import { regenerateBackupCodes } from "@gatehousejs/core/client";
 *
 * const { backupCodes } = await regenerateBackupCodes("123456");
 * ```
 */
export async function regenerateBackupCodes(
  code: string,
  options: TwoFactorRouteOptions = {},
): Promise<BackupCodesRegenerated> {
  const fields = { code: requireCode("regenerateBackupCodes", code) };
  const what = "to the new backup codes";
  return codesOf(
    await postTwoFactor("backup-codes", what, options, fields),
    "backupCodesRegenerated",
    what,
  );
}

/**
 * Turns two-factor sign-in off for the signed-in user (`POST <basePath>/two-factor/disable`),
 * with a code from the app or a backup code; its secret and backup codes are deleted.
 *
 * Rejects with a `TypeError`, before any request, unless given `{ code }` or `{ backupCode }` as
 * a string; with an {@link AuthRouteError}: `WrongCode`, `NoTwoFactor` (it is off already),
 * `RateLimited`, `Unauthenticated` (401).
 *
 * @example
 * ```ts
 * import { disableTwoFactor } from "@gatehousejs/core/client";
 *
 * const { message } = await disableTwoFactor({ code: "123456" });
 * // or, with the phone lost: await disableTwoFactor({ backupCode: "k7m2p-x9ad4" });
 * ```
 */
export async function disableTwoFactor(
  proof: SecondFactor,
  options: TwoFactorRouteOptions = {},
): Promise<TwoFactorDisabled> {
  const fields = secondFactorOf("disableTwoFactor", proof);
  const what = "to turning two-factor sign-in off";
  const body = await postTwoFactor("disable", what, options, fields);
  if (body.status !== "twoFactorDisabled" || typeof body.message !== "string") {
    throw new Error(`The auth route's answer ${what} is not one the client knows`);
  }
  return { ok: true, status: "twoFactorDisabled", message: body.message };
}

/**
 * Finishes a sign-in held for the second factor (`POST <basePath>/two-factor/challenge`): after
 * `signIn("password", { redirect: false })` resolved with `twoFactorRequired: true`, this browser
 * holds the challenge, and a code from the app or a backup code (each works once) issues the
 * session. By default the browser then goes where the sign-in was headed; with
 * `redirect: false` it stays, session sources (`createSessionSource`) refetch, and the promise
 * resolves with that URL. With `trustBrowser: true` the right code also trusts this browser for
 * 30 days: its next sign-ins of this user skip the challenge (listed by {@link twoFactorStatus},
 * ended by {@link forgetTrustedBrowser}).
 *
 * Rejects with a `TypeError`, before any request, unless given `{ code }` or `{ backupCode }` as
 * a string (and `trustBrowser`, when given, as a boolean); with an {@link AuthRouteError}:
 * `WrongCode` (try again: a challenge takes five),
 * `TwoFactorChallengeExpired` (too slow, too many wrong codes, or another browser's challenge:
 * sign in again), `RateLimited` (with `retryAfter`).
 *
 * @example
 * ```ts
 * import { signIn, verifyTwoFactor } from "@gatehousejs/core/client";
 *
 * const result = await signIn("password", { email, password, redirect: false });
 * if (result.twoFactorRequired) {
 *   // Ask for the code on your own page, then:
 *   await verifyTwoFactor({ code: "123456" }); // or { backupCode }
 *   // With "Don't ask again on this browser" ticked:
 *   // await verifyTwoFactor({ code: "123456" }, { trustBrowser: true });
 * }
 * ```
 */
export async function verifyTwoFactor(
  proof: SecondFactor,
  options: VerifyTwoFactorOptions & { redirect: false },
): Promise<TwoFactorVerified>;
export async function verifyTwoFactor(
  proof: SecondFactor,
  options?: VerifyTwoFactorOptions,
): Promise<TwoFactorVerified | undefined>;
export async function verifyTwoFactor(
  proof: SecondFactor,
  options: VerifyTwoFactorOptions = {},
): Promise<TwoFactorVerified | undefined> {
  const fields: Record<string, unknown> = secondFactorOf("verifyTwoFactor", proof);
  const { redirect = true, trustBrowser } = options;
  if (trustBrowser !== undefined && typeof trustBrowser !== "boolean") {
    throw new TypeError("verifyTwoFactor takes trustBrowser as a boolean");
  }
  if (trustBrowser) fields.trustBrowser = true;
  const body = await postTwoFactor("challenge", "to the two-factor challenge", options, fields);
  if (typeof body.url !== "string") {
    throw new Error("The auth route's answer to the two-factor challenge has no url");
  }
  if (redirect) {
    navigate(body.url);
    return undefined;
  }
  sessionChanged();
  return { ok: true, url: body.url };
}
