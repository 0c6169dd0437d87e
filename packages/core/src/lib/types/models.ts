/**
 * Data shapes shared by every layer: what providers return, what adapters store and what
 * sessions expose. Nothing here imports anything else from Gatehouse but the session-record
 * types.
 */
import type { SessionMetadata } from "./sessions.js";

/** A value, or a promise of it. */
export type Awaitable<T> = T | PromiseLike<T>;

/**
 * The kinds of provider, as the keys of an interface a sign-in method may extend by declaration
 * merging (docs/architecture.md, "Open lists"): the five below are Auth.js's.
 */
export interface ProviderTypes {
  oauth: true;
  oidc: true;
  email: true;
  credentials: true;
  webauthn: true;
}

/** Every kind of provider Gatehouse knows. */
export type ProviderType = keyof ProviderTypes;

/** The fields every user has. {@link User} extends it; augment `User`, not this. */
export interface DefaultUser {
  id?: string;
  name?: string | null;
  email?: string | null;
  image?: string | null;
}

/**
 * The public shape of a user, and what a provider's `profile()` callback returns. Add your own
 * fields by module augmentation (they then appear on {@link AdapterUser} too):
 *
 * @example
 * ```ts
 * declare module "@gatehousejs/core/types" {
 *   interface User {
 *     role?: "admin" | "member";
 *   }
 * }
 * ```
 */
export interface User extends DefaultUser {}

/** A user as an adapter stores it. */
export interface AdapterUser extends User {
  id: string;
  email: string;
  /** `null` until the user first signs in with an email provider. */
  emailVerified: Date | null;
}

/** One entry of RFC 9396 `authorization_details`. */
export interface AuthorizationDetails {
  type: string;
  [key: string]: unknown;
}

/** A link between a user and a provider, carrying the provider's token set. */
export interface Account {
  provider: string;
  providerAccountId: string;
  type: ProviderType;
  userId?: string;
  access_token?: string;
  authorization_details?: AuthorizationDetails[];
  /** Absolute time, in seconds since the epoch, at which `access_token` expires. */
  expires_at?: number;
  expires_in?: number;
  id_token?: string;
  refresh_token?: string;
  scope?: string;
  /** Always lowercase. */
  token_type?: Lowercase<string>;
  /**
   * Set to `"RefreshTokenError"` when the provider refused the stored refresh token
   * (`invalid_grant`): the account needs a new sign-in, which clears the mark (docs/tokens.md).
   */
  error?: "RefreshTokenError" | null;
  [key: string]: unknown;
}

/**
 * The account types an adapter stores, as the keys of an interface a sign-in method may extend
 * by declaration merging. Credentials sign-ins store no account.
 */
export interface AdapterAccountTypes {
  oauth: true;
  oidc: true;
  email: true;
  webauthn: true;
}

/** The account types an adapter stores. */
export type AdapterAccountType = keyof AdapterAccountTypes;

/** An account as an adapter stores it. */
export interface AdapterAccount extends Account {
  userId: string;
  type: AdapterAccountType;
}

/** The fields every session has. {@link Session} extends it; augment `Session`, not this. */
export interface DefaultSession {
  /** The signed-in user. By default: `name`, `email` and `image`. */
  user?: User;
  /** ISO 8601 date at which the session expires. */
  expires: string;
  /** What the `session` callback adds. Declare the fields you add by augmenting `Session`. */
  [key: string]: unknown;
}

/**
 * The session the client sees: what `GET /session` answers and the `session` callback returns.
 * Declare the fields your `session` callback adds by module augmentation; a property that
 * `DefaultSession` already has may be redeclared with a narrower type:
 *
 * @example
 * ```ts
 * import type { DefaultSession } from "@gatehousejs/core/types";
 *
 * declare module "@gatehousejs/core/types" {
 *   interface Session {
 *     user: { id: string } & DefaultSession["user"];
 *   }
 * }
 * ```
 */
export interface Session extends DefaultSession {}

/** A session row (database strategy). */
export interface AdapterSession extends SessionMetadata {
  sessionToken: string;
  userId: string;
  expires: Date;
}

/** A one-time email sign-in token. `token` is stored hashed, never in clear. */
export interface VerificationToken {
  identifier: string;
  token: string;
  expires: Date;
}

/** A WebAuthn credential belonging to a user. */
export interface AdapterAuthenticator {
  /** Base64 encoded. */
  credentialID: string;
  /** Base64 encoded. */
  credentialPublicKey: string;
  counter: number;
  credentialBackedUp: boolean;
  credentialDeviceType: string;
  providerAccountId: string;
  /** Comma-separated transport flags. */
  transports?: string | null;
  userId: string;
}

/** Alias for the authenticator shape used outside adapters. */
export type Authenticator = AdapterAuthenticator;

/** The claims every session token has. {@link JWT} extends it; augment `JWT`, not this. */
export interface DefaultJWT {
  name?: string | null;
  email?: string | null;
  picture?: string | null;
  sub?: string;
  iat?: number;
  exp?: number;
  jti?: string;
  /** Whatever the `jwt` callback adds. */
  [claim: string]: unknown;
}

/**
 * The claims carried in a JWT session, as the `jwt` callback, `decode` and `getToken` see them.
 * Declare the claims your `jwt` callback adds by module augmentation (of
 * `"@gatehousejs/core/types"`, or of `"@gatehousejs/core/jwt"` in a file that imports from it: both
 * name this interface).
 *
 * @example
 * ```ts
 * declare module "@gatehousejs/core/types" {
 *   interface JWT {
 *     role?: "admin" | "member";
 *   }
 * }
 * ```
 */
export interface JWT extends DefaultJWT {}

/** User information returned by an OAuth provider (OpenID Connect standard claims). */
export interface Profile {
  /** A string, or a number where the provider's API has numeric ids (GitHub). */
  id?: string | number | null;
  sub?: string | null;
  name?: string | null;
  given_name?: string | null;
  family_name?: string | null;
  middle_name?: string | null;
  nickname?: string | null;
  preferred_username?: string | null;
  profile?: string | null;
  picture?: unknown;
  website?: string | null;
  email?: string | null;
  /** A boolean; some providers (Apple, Cognito's userinfo) send the string `"true"` or `"false"`. */
  email_verified?: boolean | "true" | "false" | null;
  gender?: string | null;
  birthdate?: string | null;
  zoneinfo?: string | null;
  locale?: string | null;
  phone_number?: string | null;
  updated_at?: Date | string | number | null;
  address?: {
    formatted?: string | null;
    street_address?: string | null;
    locality?: string | null;
    region?: string | null;
    postal_code?: string | null;
    country?: string | null;
  } | null;
  [claim: string]: unknown;
}

/**
 * The data-layer contract. Every method is optional and may return a value or a promise; the
 * methods a configuration needs are checked once, when the configuration is first used.
 */
export interface Adapter {
  createUser?(user: AdapterUser): Awaitable<AdapterUser>;
  getUser?(id: string): Awaitable<AdapterUser | null>;
  getUserByEmail?(email: string): Awaitable<AdapterUser | null>;
  getUserByAccount?(
    providerAccountId: Pick<AdapterAccount, "provider" | "providerAccountId">,
  ): Awaitable<AdapterUser | null>;
  updateUser?(user: Partial<AdapterUser> & Pick<AdapterUser, "id">): Awaitable<AdapterUser>;
  /** Part of the contract; not called by Gatehouse itself. */
  deleteUser?(userId: string): Awaitable<AdapterUser | null | undefined | void>;
  linkAccount?(account: AdapterAccount): Awaitable<AdapterAccount | null | undefined | void>;
  /** Part of the contract; not called by Gatehouse itself. */
  unlinkAccount?(
    providerAccountId: Pick<AdapterAccount, "provider" | "providerAccountId">,
  ): Awaitable<AdapterAccount | undefined | void>;
  getAccount?(providerAccountId: string, provider: string): Awaitable<AdapterAccount | null>;
  /**
   * Updates the stored account's fields given (a Gatehouse addition, optional; used by
   * `getAccessToken` to store refreshed tokens). With `ifRefreshToken`, the write happens only if
   * the stored `refresh_token` still equals it (compare-and-swap; `null` matches an account with
   * no stored refresh token) and `null` is returned when it did not; returns the updated account
   * otherwise, or `null` for an unknown account.
   */
  updateAccount?(
    account: Partial<AdapterAccount> & Pick<AdapterAccount, "provider" | "providerAccountId">,
    options?: { ifRefreshToken?: string | null },
  ): Awaitable<AdapterAccount | null>;
  /**
   * Takes a short cross-process lock on an account (a Gatehouse addition, optional; used so
   * that one process refreshes a token at a time): returns a release function, or `null` when
   * another holder has it. The lock expires by itself after `ttlMs`.
   */
  lockAccount?(
    key: { provider: string; providerAccountId: string },
    ttlMs: number,
  ): Awaitable<(() => Awaitable<void>) | null>;
  /**
   * Every account linked to the user, in any order; `[]` for a user with none, or an unknown
   * user. A Gatehouse addition, absent from Auth.js's contract and optional: with it, an email
   * link that finds a user whose address is unproven tells whether that user really holds
   * another way to sign in, and signs in a user who holds none (an invited user, say); without
   * it, Gatehouse assumes such a user may hold an account whenever an OAuth provider is
   * configured (docs/security.md, "Linking and sign-up rules").
   */
  listAccountsByUserId?(userId: string): Awaitable<AdapterAccount[]>;
  /** Gets the session's metadata fields too (`createdAt`, `provider`, …): store those it can. */
  createSession?(
    session: {
      sessionToken: string;
      userId: string;
      expires: Date;
    } & SessionMetadata,
  ): Awaitable<AdapterSession>;
  getSessionAndUser?(
    sessionToken: string,
  ): Awaitable<{ session: AdapterSession; user: AdapterUser } | null>;
  updateSession?(
    session: Partial<AdapterSession> & Pick<AdapterSession, "sessionToken">,
  ): Awaitable<AdapterSession | null | undefined>;
  deleteSession?(sessionToken: string): Awaitable<AdapterSession | null | undefined | void>;
  /**
   * The user's sessions, expired ones included or not, in any order; `[]` for none. A Gatehouse
   * addition (optional): it lets users list their database sessions.
   */
  listSessionsByUserId?(userId: string): Awaitable<AdapterSession[]>;
  /**
   * Deletes every session of the user but the one whose token is `except`; returns how many were
   * deleted. A Gatehouse addition (optional): sign out everywhere, after a password change or a ban.
   */
  deleteSessionsByUserId?(
    userId: string,
    options?: { except?: string },
  ): Awaitable<number | undefined | void>;
  createVerificationToken?(
    verificationToken: VerificationToken,
  ): Awaitable<VerificationToken | null | undefined>;
  /** Returns the token and deletes it, so that it can be used once. */
  useVerificationToken?(params: {
    identifier: string;
    token: string;
  }): Awaitable<VerificationToken | null>;
  /**
   * Counts one try of a stored verification token's secret, before it is checked (a Gatehouse
   * addition, optional; used by emailed sign-in codes). Atomically, across every process sharing
   * the store: when the token exists and has had fewer than `max` tries, adds one and returns the
   * number of tries with this one (1 to `max`); otherwise returns `null` and changes nothing. Of
   * any number of concurrent calls for one token, at most `max` get a number, each a different
   * one. Without it, Gatehouse counts code tries in the rate-limit store (docs/email.md).
   */
  countVerificationTokenTry?(
    params: { identifier: string; token: string },
    max: number,
  ): Awaitable<number | null>;
  createAuthenticator?(authenticator: AdapterAuthenticator): Awaitable<AdapterAuthenticator>;
  getAuthenticator?(credentialID: string): Awaitable<AdapterAuthenticator | null>;
  listAuthenticatorsByUserId?(userId: string): Awaitable<AdapterAuthenticator[]>;
  updateAuthenticatorCounter?(
    credentialID: string,
    newCounter: number,
  ): Awaitable<AdapterAuthenticator>;
  /**
   * Deletes the passkey with this credential id and returns it, or `null` when there is none (a
   * Gatehouse addition, optional; used when a user removes a passkey). Its account row is
   * removed separately, with `unlinkAccount`.
   */
  deleteAuthenticator?(credentialID: string): Awaitable<AdapterAuthenticator | null>;
}

/**
 * Every method of the contract, required and returning a promise: the shape of an adapter that
 * implements all of it. An adapter's own interface extends it to document (and narrow) what its
 * methods do. `updateAccount` and `lockAccount` (provider token refresh) and
 * `countVerificationTokenTry` (sign-in codes) stay optional here, so that an adapter adds them
 * when it is ready.
 */
export type CompleteAdapter = {
  [K in Exclude<keyof Adapter, "updateAccount" | "lockAccount" | "countVerificationTokenTry">]-?: (
    ...args: Parameters<NonNullable<Adapter[K]>>
  ) => Promise<Awaited<ReturnType<NonNullable<Adapter[K]>>>>;
};
