/**
 * What password accounts add to the open lists (docs/architecture.md): the provider type and the
 * account type `password`, the account's `passwordHash`, the security-log events of a sign-up, a
 * reset and a change, and the warning of a configuration that cannot end a user's sessions.
 *
 * Only the password provider's module (src/providers/password.ts) and this folder's own modules
 * import this file, so an app sees these members when it imports the provider; the feature's
 * declaration (./feature.ts, installed with the built-ins) does not, and the lists of an app
 * without a password provider stay as they were.
 */

declare module "../../types/models.js" {
  interface ProviderTypes {
    /** Email and password accounts kept by Gatehouse (`@gatehousejs/core/providers/password`). */
    password: true;
  }
  interface AdapterAccountTypes {
    /** The account that holds a user's password hash: `providerAccountId` is the user's id. */
    password: true;
  }
  interface AdapterAccount {
    /**
     * The password account's hash (`scrypt$…`, or an imported bcrypt, Argon2 or Better Auth
     * hash); `null` once voided. Never leaves the adapter through a response, a log line, an
     * event or a callback: Gatehouse strips it from every account it hands on.
     */
    passwordHash?: string | null;
  }
}

declare module "../../types/providers.js" {
  interface ProviderConfigs {
    /** `Password()` from `@gatehousejs/core/providers/password`. */
    password: import("./options.js").PasswordConfig;
  }
}

declare module "../security-log/options.js" {
  interface SecurityEventTypes {
    /** A password account was created (its address not yet proven). */
    signUp: true;
    /** A reset of the user's password was asked for (the reset link was mailed). */
    passwordResetRequested: true;
    /** The user's password was reset through a reset link; every session of the user ended. */
    passwordReset: true;
    /** The signed-in user changed their password; every other session ended. */
    passwordChanged: true;
    /** The user's address changed through the link mailed to the new one; every session ended. */
    emailChanged: true;
    /** A signed-in user without a password set one. */
    passwordSet: true;
    /** A signed-in user removed their password; every other session ended. */
    passwordRemoved: true;
  }
}

declare module "../../types/config.js" {
  interface WarningCodes {
    /**
     * A configuration with a password provider cannot end a user's sessions: a reset or a
     * password change leaves the user's other sessions signed in (JWT sessions without
     * `session.revocation`, or database sessions with an adapter without `listSessionsByUserId`).
     */
    "password-sessions-not-ended": true;
  }
}

// The error this feature adds (EmailNotVerified), declared beside its class.
export type {} from "./errors.js";
// The provider's options (PasswordConfig), and the policy's warning code.
export type {} from "./options.js";
