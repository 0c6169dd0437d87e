/**
 * The rate limits' options and store contract (`AuthConfig.rateLimit`, docs/rate-limits.md),
 * added to the kernel's configuration by declaration merging. Types only.
 */

declare module "../../types/config.js" {
  interface AuthConfig {
    /**
     * Rate limits of sign-in (credentials, email, passkey options, OAuth starts), on by default.
     * `false` turns them all off; each action's limits can be changed or turned off. See
     * docs/rate-limits.md.
     */
    rateLimit?: RateLimitOptions | false;
  }
}

/** A counter of a {@link RateLimitStore}. */
export interface RateLimitCount {
  /** Hits counted so far, this one included. */
  count: number;
  /** When the counter ends, in milliseconds since the epoch. */
  resetAt: number;
}

/**
 * Where rate-limit counters live. The memory store (the default) counts per process; the Redis
 * and PostgreSQL stores let several app instances share their limits. Keys are opaque to the
 * store (Gatehouse hashes the account and address parts) and never hold a secret.
 */
export interface RateLimitStore {
  /**
   * Adds one hit to the counter `key` and returns it. A counter that does not exist or has ended
   * starts again at 1 and ends `windowMs` from now. With `extend: true` every hit moves its end
   * to `windowMs` from now (the counter lasts until `windowMs` of quiet: failure streaks);
   * otherwise the end stays where the first hit put it (a fixed window).
   * Atomic across every process sharing the store, in one round trip.
   */
  hit(key: string, windowMs: number, options?: { extend?: boolean }): Promise<RateLimitCount>;
  /** The counter without adding to it; `null` when it does not exist or has ended. */
  peek(key: string): Promise<RateLimitCount | null>;
  /** Ends the counter (a successful sign-in forgets its failures). */
  reset(key: string): Promise<void>;
}

/** A limit: at most `max` requests per `windowSeconds`. */
export interface RateLimitRule {
  max: number;
  windowSeconds: number;
}

/** Failed-attempt backoff for one account from one client address. */
export interface BackoffRule {
  /** Failures allowed before the backoff starts. */
  freeAttempts: number;
  /** The wait after the first failure past the free ones, doubled with each further failure. */
  baseSeconds: number;
  /** The longest wait. */
  maxSeconds: number;
}

/** Limits of the credentials callback. */
export interface CredentialsRateLimit {
  /** Attempts per client address, whatever the account. */
  perClient?: RateLimitRule | false;
  /** Failed attempts per account from one client address, with exponential backoff. */
  failures?: BackoffRule | false;
  /**
   * The account an attempt is for, from the submitted fields (the failure backoff counts per
   * account and client address). Default: the `email` field, else `username`, else the first
   * declared field that is not a password. Gatehouse trims and lowercases what it returns.
   */
  account?: (credentials: Record<string, unknown>) => string | null | undefined;
}

/** Limits of email (magic link / code) sign-in. */
export interface EmailRateLimit {
  /** Emails sent to one address. */
  perAddress?: RateLimitRule | false;
  /** Sign-in emails requested by one client address. */
  perClient?: RateLimitRule | false;
}

/** Limits of an action that only has a per-client limit. */
export interface ClientRateLimit {
  perClient?: RateLimitRule | false;
}

/** `AuthConfig.rateLimit`: on by default; `false` turns every limit off. */
export interface RateLimitOptions {
  /** Where the counters live. Default: one memory store per configuration (per process). */
  store?: RateLimitStore;
  credentials?: CredentialsRateLimit | false;
  email?: EmailRateLimit | false;
  /** `GET /webauthn-options`. */
  webauthn?: ClientRateLimit | false;
  /** `POST /signin/<oauth provider>`: the start of an OAuth sign-in. */
  oauth?: ClientRateLimit | false;
}
