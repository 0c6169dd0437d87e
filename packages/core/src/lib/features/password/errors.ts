/**
 * The error a password sign-in adds: the right password for an account whose address is not yet
 * proven (with `revealUnverified`, the default). The feature's declaration lists it
 * (`errors` in ./feature.ts, which must not import this file's augmentations): the kernel registers it when the features are installed, so the
 * sign-in page knows the value before any password request.
 */
import { type ErrorType, SignInError } from "../../errors.js";

declare module "../../errors.js" {
  interface ErrorTypes {
    EmailNotVerified: true;
  }
}

declare module "../../types/config.js" {
  interface SignInPageErrors {
    /** The password was right, but the account's address is not proven yet. */
    EmailNotVerified: true;
  }
}

/**
 * The password was right, but the account's address is not proven: the user must open the link
 * mailed at sign-up first. Answered only to someone who typed the account's password.
 */
export class EmailNotVerified extends SignInError {
  override type: ErrorType = "EmailNotVerified";
}
