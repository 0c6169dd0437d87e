/**
 * What the rate limits add to the open lists (docs/rate-limits.md): the sign-in page's value for a
 * reached limit, and the warning about an `X-Forwarded-For` that is not read. (`RateLimited`, the
 * error, joins them when its class moves to this folder from ../../errors.ts.)
 */

declare module "../../types/config.js" {
  interface SignInPageErrors {
    /** A sign-in rate limit was reached; `code` holds the wait in seconds. */
    RateLimited: true;
  }
  interface WarningCodes {
    /** A request came through a proxy, but `trustedProxies` is unset: per-client limits are off. */
    "untrusted-forwarded-for": true;
  }
}

// The options this feature adds to the configuration (AuthConfig, by declaration merging).
// The options this feature adds to the configuration (AuthConfig, by declaration merging).
export type {} from "./options.js";
