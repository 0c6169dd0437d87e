/**
 * The options of two-factor sign-in (docs/two-factor.md), added to `AuthConfig` by declaration
 * merging: the kernel's configuration does not name them. Types only.
 */
import type { TotpAlgorithm } from "./totp.js";

declare module "../../types/config.js" {
  interface AuthConfig {
    /**
     * Two-factor sign-in: users who enrol an authenticator app (TOTP) are asked for a code, or one
     * of their backup codes, after their password, email link or code, before any session
     * exists. Off by default; `{}` turns it on with the defaults. Needs an adapter.
     */
    twoFactor?: TwoFactorOptions;
  }
}

/** Options of two-factor sign-in. */
export interface TwoFactorOptions {
  /**
   * The name authenticator apps show beside the account (the `otpauth://` URI's issuer). Default:
   * the site's host name (without its port). It cannot contain `:`.
   */
  issuer?: string;
  /**
   * The codes' parameters (RFC 6238). Defaults: SHA-1, 6 digits, 30 seconds, which every
   * authenticator app reads; a change applies to enrolments made after it.
   */
  totp?: { algorithm?: TotpAlgorithm; digits?: 6 | 7 | 8; period?: number };
  /** Backup codes made at enrolment and on regeneration. Default 10. */
  backupCodes?: number;
  /**
   * Which OAuth and OIDC sign-ins ask for the second factor too: `true` every provider, or a
   * list of provider ids. Default `false`: the identity provider's own second factor stands.
   */
  oauth?: boolean | readonly string[];
  /** Wrong codes one challenge takes before it ends (the first factor is asked again). Default 5. */
  maxAttempts?: number;
}
