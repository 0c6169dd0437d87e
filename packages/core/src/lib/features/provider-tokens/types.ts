/**
 * What provider tokens add to the open lists (docs/tokens.md): the error that says the user must
 * sign in with the provider again.
 */

declare module "../../errors.js" {
  interface ErrorTypes {
    /** The provider refused the account's refresh token, or there is none. */
    RefreshTokenError: true;
  }
}

// A module, so that the declaration above merges into the kernel's rather than declares a new one.
export {};
