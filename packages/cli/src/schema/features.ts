/**
 * Which parts of the schema an app needs. Each feature of a Gatehouse configuration owns some
 * tables or columns; a schema for "exactly the features the app uses" keeps only those.
 */

/** The features that own tables or columns. */
export interface SchemaFeatures {
  /** `users` and `accounts`: any adapter (`config.adapter`). */
  adapter: boolean;
  /** `sessions`: `session.strategy: "database"`. */
  databaseSessions: boolean;
  /** `verification_tokens`: an email provider (magic links, sign-in codes). */
  email: boolean;
  /** `authenticators`: a WebAuthn (passkey) provider. */
  webauthn: boolean;
  /** `accounts.passwordHash`: the password provider. */
  password: boolean;
  /** `account_locks` and `accounts.error`: provider token refresh. */
  tokenRefresh: boolean;
  /** `revoked_sessions`, `revocation_epochs`, `jwt_sessions`: a SQL revocation store. */
  revocation: boolean;
  /** `security_events`: a SQL security log store. */
  securityLog: boolean;
  /** `rate_limits`: a SQL rate limit store. */
  rateLimit: boolean;
}

/** The feature names, in a stable order. */
export const FEATURE_NAMES: readonly (keyof SchemaFeatures)[] = [
  "adapter",
  "databaseSessions",
  "email",
  "webauthn",
  "password",
  "tokenRefresh",
  "revocation",
  "securityLog",
  "rateLimit",
];

/** Every feature on: the whole schema. */
export const ALL_FEATURES: Readonly<SchemaFeatures> = Object.freeze({
  adapter: true,
  databaseSessions: true,
  email: true,
  webauthn: true,
  password: true,
  tokenRefresh: true,
  revocation: true,
  securityLog: true,
  rateLimit: true,
});

/**
 * The full feature set for `features`: omitted means every feature; given, a feature that is not
 * `true` is off, except `adapter`, which is on unless `false`, and is forced on by every feature
 * that stores rows next to users (sessions, tokens, passkeys, passwords, token refresh).
 */
export function resolveFeatures(features?: Partial<SchemaFeatures>): SchemaFeatures {
  if (!features) return { ...ALL_FEATURES };
  const on = (name: keyof SchemaFeatures) => features[name] === true;
  const needsUsers =
    on("databaseSessions") || on("email") || on("webauthn") || on("password") || on("tokenRefresh");
  return {
    adapter: features.adapter !== false || needsUsers,
    databaseSessions: on("databaseSessions"),
    email: on("email"),
    webauthn: on("webauthn"),
    password: on("password"),
    tokenRefresh: on("tokenRefresh"),
    revocation: on("revocation"),
    securityLog: on("securityLog"),
    rateLimit: on("rateLimit"),
  };
}
