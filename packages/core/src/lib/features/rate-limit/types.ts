/**
 * What the rate limits add to the open lists (docs/rate-limits.md): their error, the sign-in page's
 * value for it, and the warning about an `X-Forwarded-For` that is not read.
 */

declare module "../../errors.js" {
  interface ErrorTypes {
    /** A sign-in rate limit was reached: `429`, or the sign-in page with the wait. */
    RateLimited: true;
  }
}

declare module "../../types/config.js" {
  interface SignInPageErrors {
    RateLimited: true;
  }
  interface WarningCodes {
    /** A request came through a proxy, but `trustedProxies` is unset: per-client limits are off. */
    "untrusted-forwarded-for": true;
  }
}

// A module, so that the declarations above merge into the kernel's rather than declare new ones.
export {};
