/**
 * Password accounts from the app's own pages (the password provider, docs/passwords.md): sign up,
 * ask for a reset, choose a new password with the emailed link, change the password, change the
 * address, set or remove a password. Each call
 * fetches the CSRF token, posts JSON to `<basePath>/<route>/<provider>` and turns a refusal into an
 * {@link AuthRouteError} with the route's stable `error` and what it tells the user (`detail`).
 * Passwords travel in the request body only: nothing here logs, keeps or reports one.
 */
import { basePathOf } from "./base-path.js";
import { type AuthRouteError, refusalOf } from "./errors.js";
import { browserLocation, fetchCsrfToken, postJson, sessionChanged } from "./transport.js";

/** The provider of a call that names none: `Password()`'s default id. */
const DEFAULT_PROVIDER = "password";

/** Options of {@link changePassword}, and of every password call. */
export interface PasswordRouteOptions {
  /** The password provider's id. Default `"password"`. */
  provider?: string;
  /** The auth route's base path for this call. Default: `configureClient`'s, else `/api/auth`. */
  basePath?: string;
}

/** Options of {@link signUp}, {@link requestPasswordReset} and {@link resetPassword}. */
export interface PasswordLinkOptions extends PasswordRouteOptions {
  /**
   * Where the browser lands when the flow ends (after the emailed link, or after the reset),
   * sent as `callbackUrl` and checked by the server's `redirect` callback. Default: the server's
   * (the callback-URL cookie, else the site's root).
   */
  callbackUrl?: string | undefined;
}

/** What a password route answers when it accepted a request. */
export interface PasswordRouteAnswer<Status extends string> {
  ok: true;
  /** What the route did, by its name on the wire. */
  status: Status;
  /** What to tell the user, written by the server ("Check your email: …"). */
  message: string;
}

/**
 * What {@link signUp} resolves to, the same whether or not the address already had an account
 * (its owner is emailed either way).
 */
export type SignUpResult = PasswordRouteAnswer<"verificationSent">;

/** What {@link requestPasswordReset} resolves to, the same for every address. */
export type PasswordResetRequested = PasswordRouteAnswer<"resetSent">;

/** What {@link changePassword} resolves to. */
export type PasswordChanged = PasswordRouteAnswer<"passwordChanged">;

/**
 * What {@link changeEmail} resolves to, the same whether or not another user holds the address:
 * nothing has changed yet, the link mailed to the new address makes the change.
 */
export type EmailChangeRequested = PasswordRouteAnswer<"emailChangeSent">;

/** What {@link setPassword} resolves to. */
export type PasswordSet = PasswordRouteAnswer<"passwordSet">;

/** What {@link removePassword} resolves to. */
export type PasswordRemoved = PasswordRouteAnswer<"passwordRemoved">;

/** What {@link resetPassword} resolves to: the browser is signed in. */
export interface PasswordResetResult {
  ok: true;
  /**
   * Where the server sends the browser next: the `callbackUrl`, or the page of a further
   * sign-in step. The call does not navigate: `location.assign(url)` does.
   */
  url: string;
}

/** The fields of {@link signUp}. */
export interface SignUpFields {
  email: string;
  password: string;
  /**
   * The provider's extra fields (`name`, …), posted as they are (JSON values) and checked by its
   * `fields` schema; a field the provider does not take is refused (`InvalidFields`).
   */
  [extra: string]: unknown;
}

/**
 * What {@link resetPassword} takes: the emailed link's `token` and `email`, or (with the
 * provider's `resetCode`) the address and the code the email shows; and the new password.
 */
export type ResetPasswordFields =
  | { token: string; email: string; password: string; code?: undefined }
  | { code: string; email: string; password: string; token?: undefined };

/** What {@link changePassword} takes. */
export interface ChangePasswordFields {
  currentPassword: string;
  newPassword: string;
}

/**
 * What {@link changeEmail} takes: the new address, and the current password when the account
 * has one (an account without one needs a sign-in from the last ten minutes instead).
 */
export interface ChangeEmailFields {
  newEmail: string;
  currentPassword?: string | undefined;
}

/** What {@link setPassword} takes. */
export interface SetPasswordFields {
  password: string;
}

/** What {@link removePassword} takes. */
export interface RemovePasswordFields {
  currentPassword: string;
}

/** The token and address an emailed reset link carries: what {@link readPasswordResetLink} reads. */
export interface PasswordResetLink {
  token: string;
  email: string;
  /** Where the reset ends, when the link says. */
  callbackUrl: string | undefined;
  /**
   * The password provider's id, when the link says (`pages.resetPassword` is given it): pass it
   * as `provider` to {@link resetPassword}.
   */
  provider: string | undefined;
}

/** Refuses, before any request, what is not a string (never naming what was given). */
function requireStrings(call: string, values: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(values)) {
    if (typeof value !== "string") throw new TypeError(`${call} takes ${name} as a string`);
  }
}

/**
 * Posts `fields` with the CSRF token to `<basePath>/<route>/<provider>`; resolves with the
 * answer's body, or throws the refusal it carries: an error status with `{ error, message }`, or
 * a redirect to an error page (`?error=Verification` for a wrong, used or expired link), whose
 * status is the answer's, 200.
 */
async function post(
  route: string,
  what: string,
  options: PasswordRouteOptions,
  fields: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const base = basePathOf(options.basePath);
  const provider = encodeURIComponent(options.provider ?? DEFAULT_PROVIDER);
  const csrfToken = await fetchCsrfToken(base);
  const answer = await postJson(`${base}/${route}/${provider}`, { ...fields, csrfToken });
  const body = answer.body ?? {};
  if (!answer.ok) throw refusalOf(what, answer, body);
  if (typeof body.url === "string") {
    const error = new URL(body.url, browserLocation().href).searchParams.get("error");
    if (error !== null) throw refusalOf(what, answer, body, error);
  }
  return body;
}

/** The route's acceptance, when `body` is the one expected. */
function accepted<Status extends string>(
  body: Record<string, unknown>,
  status: Status,
  what: string,
): PasswordRouteAnswer<Status> {
  if (body.status !== status || typeof body.message !== "string") {
    throw new Error(`The auth route's answer ${what} is not one the client knows`);
  }
  return { ok: true, status, message: body.message };
}

/**
 * Signs up with an email address and a password (`POST <basePath>/signup/<provider>`). Resolves
 * the same whether or not the address already has an account, so sign-up tells nobody who has
 * one: a new address gets the link that proves it, a taken one an email to its owner. The account
 * signs in once that link is opened (with the provider's default `requireEmailVerification`).
 *
 * Rejects with an {@link AuthRouteError} for what the user can fix: `error` is `InvalidEmail`,
 * `InvalidFields`, or the policy's `PasswordTooShort`, `PasswordTooLong`, `PasswordTooCommon` or
 * `PasswordInvalid`, and `detail` says what to change; `RateLimited` has `retryAfter`.
 *
 * @example
 * ```ts
 * import { AuthRouteError, signUp } from "@gatehousejs/core/client";
 *
 * try {
 *   const { message } = await signUp({ email: "ada@example.com", password: "a long passphrase of mine", name: "Ada" });
 *   console.log(message); // "Check your email: …"
 * } catch (error) {
 *   if (error instanceof AuthRouteError) console.log(error.detail ?? error.error);
 * }
 * ```
 */
export async function signUp(
  fields: SignUpFields,
  options: PasswordLinkOptions = {},
): Promise<SignUpResult> {
  const { email, password, ...extra } = fields;
  requireStrings("signUp", { email, password });
  const body: Record<string, unknown> = { ...extra, email, password };
  if (options.callbackUrl !== undefined) body.callbackUrl = options.callbackUrl;
  const what = "to the sign-up";
  return accepted(await post("signup", what, options, body), "verificationSent", what);
}

/**
 * Asks for a password reset (`POST <basePath>/forgot-password/<provider>`): the address's owner
 * gets the reset link, valid for an hour and ended by a newer request. Resolves the same for
 * every address, known or not. Rejects with an {@link AuthRouteError} for a malformed address
 * (`InvalidEmail`) or too many requests (`RateLimited`).
 *
 * @example
 * ```ts
 * import { requestPasswordReset } from "@gatehousejs/core/client";
 *
 * const { message } = await requestPasswordReset("ada@example.com", { callbackUrl: "/account" });
 * ```
 */
export async function requestPasswordReset(
  email: string,
  options: PasswordLinkOptions = {},
): Promise<PasswordResetRequested> {
  requireStrings("requestPasswordReset", { email });
  const body: Record<string, unknown> = { email };
  if (options.callbackUrl !== undefined) body.callbackUrl = options.callbackUrl;
  const what = "to the reset request";
  return accepted(await post("forgot-password", what, options, body), "resetSent", what);
}

/**
 * The `token`, `email`, `callbackUrl` and `provider` of an emailed reset link, read from `url`
 * (default: the current page's), or `null` when it carries no token and address. The link opens
 * the auth route's own reset page; with `pages.resetPassword` it goes on to a page of the app
 * (docs/passwords.md, "Your own pages"), which reads it with this.
 *
 * @example
 * ```ts
 * import { readPasswordResetLink, resetPassword } from "@gatehousejs/core/client";
 *
 * const link = readPasswordResetLink();
 * if (link) {
 *   const { url } = await resetPassword(
 *     { token: link.token, email: link.email, password: "my new long passphrase" },
 *     { callbackUrl: link.callbackUrl },
 *   );
 *   location.assign(url);
 * }
 * ```
 */
export function readPasswordResetLink(url?: string | URL): PasswordResetLink | null {
  const params = new URL(url ?? browserLocation().href).searchParams;
  const token = params.get("token");
  const email = params.get("email");
  if (!token || !email) return null;
  return {
    token,
    email,
    callbackUrl: params.get("callbackUrl") ?? undefined,
    provider: params.get("provider") ?? undefined,
  };
}

/**
 * Sets a new password with an emailed reset link (`POST <basePath>/reset-password/<provider>`):
 * its `token` and `email` (see {@link readPasswordResetLink}), or, when the provider mails codes
 * (`resetCode`), the address and the `code` the person typed. A link or code works once; every
 * session of the user ends and this browser is signed in. Resolves with where the server would
 * send the browser next, without navigating.
 *
 * Rejects with an {@link AuthRouteError}: the policy's refusals as {@link signUp}'s (nothing is
 * spent, try again); `Verification` for a link that is wrong, used, expired or replaced by a
 * newer request; `WrongCode`, or `CodeUnusable` once a code is spent, expired or tried too often.
 */
export async function resetPassword(
  fields: ResetPasswordFields,
  options: PasswordLinkOptions = {},
): Promise<PasswordResetResult> {
  const { email, password } = fields;
  const proof = fields.token === undefined ? { code: fields.code } : { token: fields.token };
  requireStrings("resetPassword", { ...proof, email, password });
  const body: Record<string, unknown> = { ...proof, email, password };
  if (options.callbackUrl !== undefined) body.callbackUrl = options.callbackUrl;
  const answer = await post("reset-password", "to the reset", options, body);
  if (typeof answer.url !== "string") {
    throw new Error("The auth route's answer to the reset has no url");
  }
  sessionChanged();
  return { ok: true, url: answer.url };
}

/**
 * Changes the signed-in user's password (`POST <basePath>/change-password/<provider>`): the
 * current one and the new one. Every other session of the user ends; this browser's goes on
 * (under a new id) and the address is told.
 *
 * Rejects with an {@link AuthRouteError}: `WrongPassword` (counted as a failed sign-in of the
 * account), the policy's refusals as {@link signUp}'s, `NoPassword` for an account that signs
 * in another way, `ReauthenticationRequired` (403) for a user with two-factor sign-in on whose
 * sign-in is older than ten minutes (send the browser to the error's `signInUrl`, which comes
 * back to the change-password page, and try again), `Unauthenticated` (401) when nobody is
 * signed in, `RateLimited`.
 *
 * @example
 * ```ts
 * import { AuthRouteError, changePassword } from "@gatehousejs/core/client";
 *
 * try {
 *   await changePassword({ currentPassword: "my old long passphrase", newPassword: "my new long passphrase" });
 * } catch (error) {
 *   if (error instanceof AuthRouteError && error.signInUrl) location.assign(error.signInUrl);
 *   else throw error;
 * }
 * ```
 */
export async function changePassword(
  fields: ChangePasswordFields,
  options: PasswordRouteOptions = {},
): Promise<PasswordChanged> {
  const { currentPassword, newPassword } = fields;
  requireStrings("changePassword", { currentPassword, newPassword });
  const what = "to the password change";
  const body = { currentPassword, password: newPassword };
  const changed = accepted(
    await post("change-password", what, options, body),
    "passwordChanged",
    what,
  );
  sessionChanged();
  return changed;
}

/**
 * Asks to move the signed-in user to another address (`POST <basePath>/change-email/<provider>`):
 * a single-use link, valid for an hour, goes to the new address, and the change is made when it
 * is opened and confirmed there (on the auth route's own page); then every session of the user
 * ends. Resolves the same whether or not another user holds the address (that address is told,
 * with no link), so the answer tells nobody who has an account.
 *
 * Rejects with an {@link AuthRouteError}: `InvalidEmail`, `SameEmail`, `WrongPassword` (counted
 * as a failed sign-in of the account), `ReauthenticationRequired` (403) when the sign-in is older
 * than ten minutes for an account without a password, or for a user with two-factor sign-in on
 * (sign in again, then ask: the error's `signInUrl`, when it has one, is the sign-in page, coming
 * back to the change-email page), `Unauthenticated` (401) when nobody is signed in, `RateLimited`.
 *
 * @example
 * ```ts
 * import { changeEmail } from "@gatehousejs/core/client";
 *
 * const { message } = await changeEmail({ newEmail: "ada@example.org", currentPassword: "my long passphrase" });
 * ```
 */
export async function changeEmail(
  fields: ChangeEmailFields,
  options: PasswordRouteOptions = {},
): Promise<EmailChangeRequested> {
  const { newEmail, currentPassword } = fields;
  requireStrings("changeEmail", {
    newEmail,
    ...(currentPassword === undefined ? {} : { currentPassword }),
  });
  const body: Record<string, unknown> = { email: newEmail };
  if (currentPassword !== undefined) body.currentPassword = currentPassword;
  const what = "to the email change";
  return accepted(await post("change-email", what, options, body), "emailChangeSent", what);
}

/**
 * Gives the signed-in user a password (`POST <basePath>/set-password/<provider>`), for an
 * account that signs in another way (OAuth, an email link, a passkey): it then also signs in
 * with its address and this password. No session ends; the address is told.
 *
 * Rejects with an {@link AuthRouteError}: `PasswordExists` (change it with
 * {@link changePassword} instead), `EmailUnproven`, `ReauthenticationRequired` when the sign-in
 * is older than ten minutes, the policy's refusals as {@link signUp}'s, `Unauthenticated` (401).
 *
 * @example
 * ```ts
 * import { setPassword } from "@gatehousejs/core/client";
 *
 * await setPassword({ password: "a long passphrase of mine" });
 * ```
 */
export async function setPassword(
  fields: SetPasswordFields,
  options: PasswordRouteOptions = {},
): Promise<PasswordSet> {
  const { password } = fields;
  requireStrings("setPassword", { password });
  const what = "to setting a password";
  return accepted(await post("set-password", what, options, { password }), "passwordSet", what);
}

/**
 * Removes the signed-in user's password (`POST <basePath>/remove-password/<provider>`), with the
 * current one. Every other session of the user ends; this browser's goes on (under a new id) and
 * the address is told.
 *
 * Rejects with an {@link AuthRouteError}: `LastWayIn` unless the user surely keeps another way
 * in (a passkey, a proven address with an email sign-in provider, an OAuth account),
 * `WrongPassword`, `NoPassword`, `ReauthenticationRequired` (403) for a user with two-factor
 * sign-in on whose sign-in is older than ten minutes (the error's `signInUrl` is the sign-in
 * page, coming back to the remove-password page), `Unauthenticated` (401), `RateLimited`.
 *
 * @example
 * ```ts
 * import { removePassword } from "@gatehousejs/core/client";
 *
 * await removePassword({ currentPassword: "my long passphrase" });
 * ```
 */
export async function removePassword(
  fields: RemovePasswordFields,
  options: PasswordRouteOptions = {},
): Promise<PasswordRemoved> {
  const { currentPassword } = fields;
  requireStrings("removePassword", { currentPassword });
  const what = "to removing the password";
  const removed = accepted(
    await post("remove-password", what, options, { currentPassword }),
    "passwordRemoved",
    what,
  );
  sessionChanged();
  return removed;
}
