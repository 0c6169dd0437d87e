/**
 * The password provider's configuration (docs/passwords.md): what `Password()` takes and what it
 * returns, and the app's own pages it adds to `pages` (`signUp`, `forgotPassword`,
 * `resetPassword`: ./app-pages.ts). Types only.
 */
import type { PasswordHashOptions } from "../../crypto/password.js";
import type { Awaitable } from "../../types/models.js";
import type { CredentialInput, ProviderStyle } from "../../types/providers.js";
import type { PasswordPolicyOptions } from "./policy.js";

declare module "../../types/config.js" {
  interface PagesOptions {
    /**
     * Your sign-up page, instead of the built-in one: `GET <basePath>/signup/<provider>` (the
     * built-in sign-in page's "Create an account" link) redirects there with `provider` and
     * `callbackUrl` in the query. It signs up with the client's `signUp`, which posts to that
     * route. A path on the request's origin, or an absolute URL.
     */
    signUp?: string;
    /**
     * Your page that asks for a reset, instead of the built-in one: `GET
     * <basePath>/forgot-password/<provider>` (the "Forgot your password?" links, the "your
     * password was changed" email) redirects there with `provider`, `callbackUrl` and, when the
     * link prefilled one, `email`. It asks with the client's `requestPasswordReset`.
     */
    forgotPassword?: string;
    /**
     * Your page that chooses the new password, instead of the built-in one. The emailed reset
     * link still opens `<basePath>/reset-password/<provider>`, which spends nothing and redirects
     * here (with `Referrer-Policy: no-referrer`) with `provider`, `token`, `email` and
     * `callbackUrl`: what the client's `readPasswordResetLink` reads and `resetPassword` posts
     * back. Opened without a token (where the built-in forgot page leads after a request), it
     * gets `provider`, `callbackUrl` and the `email` if any: say to check the email (or, with
     * `resetCode`, take the code). Serve it with `Referrer-Policy: no-referrer`: its URL holds the
     * token.
     */
    resetPassword?: string;
  }
}

/**
 * A schema in the Standard Schema v1 shape (https://standardschema.dev): zod, valibot, ArkType
 * and others implement it. Only what Gatehouse calls is described here.
 */
export interface FieldsSchema {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    validate(value: unknown): FieldsSchemaResult | PromiseLike<FieldsSchemaResult>;
  };
}

/** What a Standard Schema's `validate` answers. */
export type FieldsSchemaResult =
  | { readonly value: unknown; readonly issues?: undefined }
  | {
      readonly issues: ReadonlyArray<{
        readonly message: string;
        readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>;
      }>;
    };

/** Which email a password provider sends, and why. */
export type PasswordEmailKind =
  /** After a sign-up with a new address: the link that proves it. */
  | "verifyEmail"
  /**
   * After a sign-up with an address a user already holds and has proven: nothing was created,
   * and the owner is told (`url` is the sign-in page).
   */
  | "accountExists"
  /**
   * After a sign-up with an address a user holds without having proven it: nothing was changed,
   * and `url` lets the address's owner confirm it by choosing a password of their own.
   */
  | "accountUnconfirmed"
  /** After a reset request for an address whose account has a password: the reset link. */
  | "resetPassword"
  /**
   * After a reset request for an address a user holds without having proven it: `url` lets the
   * address's owner confirm it by choosing a password of their own (as `accountUnconfirmed`).
   */
  | "resetUnconfirmed"
  /**
   * After a reset request for an address with no account, or whose account has no password (it
   * signs in another way): nothing was changed, and `url` is the sign-in page. Sent so that the
   * answer takes as long for every address; an app that would rather not mail addresses it does
   * not know may skip it in `sendEmail`, and then answers those requests sooner.
   */
  | "resetUnavailable"
  /**
   * After a reset or a password change: the account's owner is told (`url` is the page that
   * starts a reset).
   */
  | "passwordChanged"
  /**
   * After a signed-in user asked to change their address: sent to the new address, `url` is the
   * link that makes the change (nothing changes until it is used).
   */
  | "changeEmail"
  /**
   * After a signed-in user asked to change their address to one that cannot be used (another
   * account holds it): sent to that address instead of the link (`url` is the sign-in page), so
   * the answer to the request is the same either way.
   */
  | "changeEmailUnavailable"
  /** After an address change: the old address is told (`url` is the sign-in page). */
  | "emailChanged"
  /** After a signed-in user set a password: the address is told (`url`: the reset page). */
  | "passwordSet"
  /** After a signed-in user removed their password: the address is told (`url`: sign-in). */
  | "passwordRemoved";

/** One email a password provider sends: a default text and HTML, and what they were made from. */
export interface PasswordEmail {
  kind: PasswordEmailKind;
  /** The recipient: the normalised address. */
  to: string;
  /** The link in the message (a verification or reset link, the sign-in or reset page). */
  url: string;
  /** When `url` stops working, for a verification or reset link. */
  expires?: Date;
  /** The reset code (`resetPassword` emails, with `resetCode`), as the email shows it. */
  code?: string;
  subject: string;
  text: string;
  html: string;
  /** The request that caused the email. */
  request: Request;
}

/** What `Password()` takes. */
export interface PasswordOptions {
  /** Default `"password"`. */
  id?: string;
  /** Default `"Password"`. */
  name?: string;
  /**
   * A password account signs in only once its address is proven by the emailed link (default
   * `true`). `false` lets it sign in at once; the address stays unproven (and the account can
   * be taken back by its owner, docs/security.md) until the link is used. It needs a way to end
   * a user's sessions (database sessions, or JWT sessions with `session.revocation`).
   */
  requireEmailVerification?: boolean;
  /**
   * What a sign-in with the right password says while the address is unproven (and
   * `requireEmailVerification` holds): `true` (default) answers `EmailNotVerified`, so the user
   * knows to open the link; `false` answers exactly as a wrong password does. Only someone who
   * typed the account's password ever sees the difference.
   */
  revealUnverified?: boolean;
  /** The password policy (./policy.ts): length, common and breached passwords. */
  policy?: PasswordPolicyOptions;
  /** The scrypt cost new hashes are made with; older hashes are upgraded at sign-in. */
  hash?: PasswordHashOptions;
  /**
   * Extra sign-up fields (a name, …), validated by a Standard Schema v1 object (zod, valibot, …)
   * that receives every posted field but `email`, `password`, `csrfToken` and `callbackUrl`. A
   * field the schema's output does not keep is refused, as is every extra field without a
   * schema. The output is stored on the new user (`id`, `email` and `emailVerified` excepted).
   */
  fields?: FieldsSchema;
  /** The inputs the built-in sign-up page shows for `fields` (by name). */
  formFields?: Record<string, CredentialInput>;
  /** Lifetime of a verification link, in seconds. Default 24 hours. */
  maxAge?: number;
  /**
   * Lifetime of a reset link, in seconds. Default 1 hour, at most 24 hours. A newer request, a
   * completed reset or a password change ends a link sooner.
   */
  resetMaxAge?: number;
  /**
   * Reset emails also carry a code of 8 characters, typed with the address and the new password
   * on the page a request leads to (for a user who reads mail on another device). Five wrong
   * tries end it, and its link. Default `false`.
   */
  resetCode?: boolean;
  /**
   * Sends one email. Default: over SMTP with nodemailer (an optional peer), to `server` from
   * `from` (else `AUTH_NODEMAILER_SERVER` / `EMAIL_SERVER` and `AUTH_NODEMAILER_FROM` /
   * `EMAIL_FROM`, read when the first email is sent).
   */
  sendEmail?: (email: PasswordEmail) => Awaitable<void>;
  /** The SMTP server for the default `sendEmail`: a URL or nodemailer transport options. */
  server?: string | Record<string, unknown>;
  /** The sender for the default `sendEmail`. */
  from?: string;
  style?: ProviderStyle;
}

/** A password provider, as `Password()` returns it. */
export interface PasswordConfig
  extends Omit<PasswordOptions, "id" | "name" | "sendEmail" | "requireEmailVerification"> {
  id: string;
  name: string;
  type: "password";
  requireEmailVerification: boolean;
  sendEmail: (email: PasswordEmail) => Awaitable<void>;
}
