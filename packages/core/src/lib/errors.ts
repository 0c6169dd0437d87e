/**
 * The one error tree. Every error Gatehouse raises is an `AuthError` whose `type` is a key of
 * `ErrorTypes`: a union known to the compiler, so `switch (error.type)` narrows, and one a feature
 * extends from its own folder. Messages never carry tokens, secrets, passwords or cookie values;
 * structured detail goes on `cause`.
 */

/**
 * The error types, as the keys of an interface that features extend by declaration merging: a
 * feature declares its errors beside their classes, in its own folder, and an app may declare the
 * errors it raises itself. The types below are those of this file's classes: a type is declared
 * beside its class, because this file must not use a member another file merges in (it would
 * depend on that file without importing it, and an incremental `tsc -b` keeps this file's old
 * errors when that file is added).
 *
 * @example
 * ```ts
 * declare module "@gatehousejs/core/types" {
 *   interface ErrorTypes {
 *     TwoFactorRequired: true;
 *   }
 * }
 * ```
 */
export interface ErrorTypes {
  AuthError: true;
  AccessDenied: true;
  AccountNotLinked: true;
  AdapterError: true;
  CallbackRouteError: true;
  CredentialsSignin: true;
  DuplicateConditionalUI: true;
  EmailSignInError: true;
  ErrorPageLoop: true;
  EventError: true;
  ExperimentalFeatureNotEnabled: true;
  InvalidCallbackUrl: true;
  InvalidCheck: true;
  InvalidEndpoints: true;
  InvalidProvider: true;
  JWTSessionError: true;
  MissingAdapter: true;
  MissingAdapterMethods: true;
  MissingAuthorize: true;
  MissingCSRF: true;
  MissingSecret: true;
  MissingWebAuthnAutocomplete: true;
  OAuthAccountNotLinked: true;
  OAuthCallbackError: true;
  OAuthProfileParseError: true;
  OAuthSignInError: true;
  RateLimited: true;
  RefreshTokenError: true;
  SessionStoreUnavailable: true;
  SessionTokenError: true;
  SignOutError: true;
  UnknownAction: true;
  UnsupportedStrategy: true;
  UntrustedHost: true;
  Verification: true;
  WebAuthnVerificationError: true;
}

/** Every error type, as it appears in logs and (for client-safe ones) in `?error=`. */
export type ErrorType = keyof ErrorTypes;

/** `signIn` errors send the user back to the sign-in page; the rest to the error page. */
export type ErrorKind = "signIn" | "error";

/** Base class of every Gatehouse error. */
export class AuthError extends Error {
  /** The error's type; stable, safe to switch on. */
  type: ErrorType = "AuthError";
  /** Where the user is sent: the sign-in page (`signIn`) or the error page (`error`). */
  kind: ErrorKind = "error";

  constructor(message?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Errors whose `kind` sends the user back to the sign-in page. */
export class SignInError extends AuthError {
  override kind: ErrorKind = "signIn";
}

/** The `signIn` callback refused the sign-in, or threw. */
export class AccessDenied extends AuthError {
  override type: ErrorType = "AccessDenied";
}
/** A passkey could not be linked to the signed-in user. */
export class AccountNotLinked extends SignInError {
  override type: ErrorType = "AccountNotLinked";
}
/** An adapter method threw. The original error is the `cause`. */
export class AdapterError extends AuthError {
  override type: ErrorType = "AdapterError";
}
/** Something unexpected failed inside a callback route. */
export class CallbackRouteError extends AuthError {
  override type: ErrorType = "CallbackRouteError";
}

/**
 * Thrown (or implied by a `null` result) by a credentials provider's `authorize`. Subclass it
 * and set `code` to tell the sign-in page why, in words safe to show anyone.
 *
 * @example
 * ```ts
 * class AccountLocked extends CredentialsSignin { code = "locked" }
 * ```
 */
export class CredentialsSignin extends SignInError {
  override type: ErrorType = "CredentialsSignin";
  /** Goes into the redirect URL as `code=`. Keep it generic. */
  code = "credentials";
}

/** More than one WebAuthn provider enables conditional UI. */
export class DuplicateConditionalUI extends AuthError {
  override type: ErrorType = "DuplicateConditionalUI";
}
/** The sign-in email could not be sent. */
export class EmailSignInError extends SignInError {
  override type: ErrorType = "EmailSignInError";
  /** Why: `invalid_email` (the address was refused) or `send_failed`. Goes into `code=`. */
  code = "send_failed";
}
/** A custom error page itself failed or redirected back to the error page. */
export class ErrorPageLoop extends AuthError {
  override type: ErrorType = "ErrorPageLoop";
}
/** An event handler threw. Logged, never shown. */
export class EventError extends AuthError {
  override type: ErrorType = "EventError";
}
/** An experimental feature was configured without being enabled. */
export class ExperimentalFeatureNotEnabled extends AuthError {
  override type: ErrorType = "ExperimentalFeatureNotEnabled";
}
/** The callback URL in the query or cookie is not a valid URL. */
export class InvalidCallbackUrl extends AuthError {
  override type: ErrorType = "InvalidCallbackUrl";
}
/** A state, PKCE, nonce or WebAuthn challenge check failed. */
export class InvalidCheck extends SignInError {
  override type: ErrorType = "InvalidCheck";
}
/** An OAuth provider has neither an issuer nor the endpoint it needs. */
export class InvalidEndpoints extends AuthError {
  override type: ErrorType = "InvalidEndpoints";
}
/** The provider named in the URL does not exist or does not support the action. */
export class InvalidProvider extends AuthError {
  override type: ErrorType = "InvalidProvider";
}
/** The JWT session cookie could not be decoded. */
export class JWTSessionError extends AuthError {
  override type: ErrorType = "JWTSessionError";
}
/** A feature that needs an adapter was configured without one. */
export class MissingAdapter extends AuthError {
  override type: ErrorType = "MissingAdapter";
}
/** The adapter lacks methods the configuration needs. The message names them. */
export class MissingAdapterMethods extends AuthError {
  override type: ErrorType = "MissingAdapterMethods";
}
/** A credentials provider has no `authorize`. */
export class MissingAuthorize extends AuthError {
  override type: ErrorType = "MissingAuthorize";
}
/** A POST that needs a CSRF token arrived without a valid one. */
export class MissingCSRF extends SignInError {
  override type: ErrorType = "MissingCSRF";
}
/** No secret is configured. */
export class MissingSecret extends AuthError {
  override type: ErrorType = "MissingSecret";
}
/** Conditional UI is enabled but no form field has `webauthn` autocomplete. */
export class MissingWebAuthnAutocomplete extends AuthError {
  override type: ErrorType = "MissingWebAuthnAutocomplete";
}
/** The account belongs to another user, or its email is taken and linking is not allowed. */
export class OAuthAccountNotLinked extends SignInError {
  override type: ErrorType = "OAuthAccountNotLinked";
}
/** The provider answered the callback with an `error`. */
export class OAuthCallbackError extends SignInError {
  override type: ErrorType = "OAuthCallbackError";
}
/** A provider's `profile()` threw or returned something unusable. */
export class OAuthProfileParseError extends AuthError {
  override type: ErrorType = "OAuthProfileParseError";
}
/** Starting the OAuth flow failed. */
export class OAuthSignInError extends SignInError {
  override type: ErrorType = "OAuthSignInError";
}
/**
 * A sign-in rate limit was reached (docs/rate-limits.md). The client may try again after
 * `retryAfter` seconds; the answer is a `429` with `Retry-After`, or the sign-in page with
 * `error=RateLimited`. The message names the limit and a hashed key, never an address or account.
 */
export class RateLimited extends SignInError {
  override type: ErrorType = "RateLimited";
  /** Whole seconds until the limit lets the client try again; at least 1. */
  readonly retryAfter: number;

  constructor(message: string, retryAfter: number, options?: { cause?: unknown }) {
    super(message, options);
    this.retryAfter = Math.max(1, Math.ceil(Number.isFinite(retryAfter) ? retryAfter : 1));
  }
}
/**
 * The provider refused the account's refresh token (or there is none): the user must sign in
 * again with the provider. The account stays marked (`error: "RefreshTokenError"`) until then.
 */
export class RefreshTokenError extends AuthError {
  override type: ErrorType = "RefreshTokenError";
}
/**
 * The store that holds sessions (the adapter, or the JWT revocation store) did not answer in time
 * while a session was being ended or managed, after bounded retries (docs/sessions.md, "When the
 * session store is down"). The session was not ended: the answer says so (`503` with
 * `Retry-After`, or a page that offers to try again) and keeps the cookie. The message names the
 * step, never a token; the store's own error is the `cause`.
 */
export class SessionStoreUnavailable extends AuthError {
  override type: ErrorType = "SessionStoreUnavailable";
  /** Whole seconds after which trying again makes sense; at least 1. */
  readonly retryAfter: number;

  constructor(message: string, retryAfter: number, options?: { cause?: unknown }) {
    super(message, options);
    this.retryAfter = Math.max(1, Math.ceil(Number.isFinite(retryAfter) ? retryAfter : 1));
  }
}
/** A database session could not be read. */
export class SessionTokenError extends AuthError {
  override type: ErrorType = "SessionTokenError";
}
/** Ending a session failed. Logged; the cookies are cleared anyway. */
export class SignOutError extends AuthError {
  override type: ErrorType = "SignOutError";
}
/** The path or method names no action. */
export class UnknownAction extends AuthError {
  override type: ErrorType = "UnknownAction";
}
/** The configuration asks for a session strategy its providers cannot use. */
export class UnsupportedStrategy extends AuthError {
  override type: ErrorType = "UnsupportedStrategy";
}
/** `trustHost` is not set. */
export class UntrustedHost extends AuthError {
  override type: ErrorType = "UntrustedHost";
}
/** An email sign-in link is wrong, used or expired. */
export class Verification extends AuthError {
  override type: ErrorType = "Verification";
}
/** A WebAuthn ceremony failed verification. */
export class WebAuthnVerificationError extends AuthError {
  override type: ErrorType = "WebAuthnVerificationError";
}

/** Types that may appear in `?error=`. */
const clientSafe = new Set<ErrorType>([
  "AccessDenied",
  "AccountNotLinked",
  "CredentialsSignin",
  "EmailSignInError",
  "InvalidCallbackUrl",
  "InvalidCheck",
  "MissingCSRF",
  "OAuthAccountNotLinked",
  "OAuthCallbackError",
  "OAuthSignInError",
  "RateLimited",
  "SessionStoreUnavailable",
  "Verification",
  "WebAuthnVerificationError",
]);

/**
 * Whether an error's type may be shown to the client (in a redirect URL). Everything else is
 * reported as `Configuration` and only logged in full.
 */
export function isClientError(error: unknown): error is AuthError {
  return error instanceof AuthError && clientSafe.has(error.type);
}

/** Failures caused by the request, not the server: logged at `warn`, never at `error`. */
const mistakes = new Set<ErrorType>([
  "AccountNotLinked",
  "CredentialsSignin",
  "InvalidCallbackUrl",
  "InvalidCheck",
  "MissingCSRF",
  "OAuthAccountNotLinked",
  "RateLimited",
  "UnknownAction",
  "Verification",
  "WebAuthnVerificationError",
]);

/**
 * Whether an error is the client's mistake (a wrong password, an expired link, a forged form)
 * rather than a fault of the server or its configuration.
 */
export function isClientMistake(error: unknown): error is AuthError {
  if (!(error instanceof AuthError)) return false;
  if (error instanceof EmailSignInError) return error.code === "invalid_email";
  return mistakes.has(error.type);
}

/**
 * Classifies an error type a feature declares (in `ErrorTypes`): `clientSafe` lets it appear in
 * the redirect URL's `?error=` (else the client reads `Configuration`), `mistake` logs it at
 * `warn` as the client's mistake (else at `error`). Call it beside the error's class, so the
 * classification is in place before the first error of the type can be thrown.
 *
 * @example
 * ```ts
 * declare module "../../errors.js" {
 *   interface ErrorTypes {
 *     TwoFactorFailed: true;
 *   }
 * }
 * export class TwoFactorFailed extends SignInError {
 *   override type: ErrorType = "TwoFactorFailed";
 * }
 * classifyErrorType("TwoFactorFailed", { clientSafe: true, mistake: true });
 * ```
 */
export function classifyErrorType(
  type: ErrorType,
  traits: { clientSafe?: boolean; mistake?: boolean },
): void {
  if (traits.clientSafe) clientSafe.add(type);
  if (traits.mistake) mistakes.add(type);
}
