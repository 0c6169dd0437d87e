/**
 * The error a password sign-in adds: the right password for an account whose address is not yet
 * proven (with `revealUnverified`, the default). Registered when the provider's module is
 * imported, so the sign-in page knows the value before any password request.
 */
import { classifyErrorType, type ErrorType, SignInError } from "../../errors.js";
import { addSignInErrorMessage } from "../../pages/sign-in-errors.js";

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

classifyErrorType("EmailNotVerified", { clientSafe: true, mistake: true });
addSignInErrorMessage(
  "EmailNotVerified",
  "Confirm your email address first: open the link we sent you when you signed up.",
);
