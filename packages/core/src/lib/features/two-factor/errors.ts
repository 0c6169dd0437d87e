/**
 * The errors two-factor sign-in adds. `TwoFactorFailed` is what a wrong code is, as the
 * `signInRefused` moment carries it (the security log records a failed sign-in); the sign-in
 * page's value `TwoFactorChallengeExpired` is a redirect's, registered by the feature's
 * declaration (./feature.ts).
 */
import { type ErrorType, SignInError } from "../../errors.js";

declare module "../../errors.js" {
  interface ErrorTypes {
    TwoFactorFailed: true;
  }
}

declare module "../../types/config.js" {
  interface SignInPageErrors {
    /** The two-factor step of a sign-in ended (too many tries, expired, or another browser's). */
    TwoFactorChallengeExpired: true;
  }
}

/** A wrong second factor (a wrong, used or outdated code). */
export class TwoFactorFailed extends SignInError {
  override type: ErrorType = "TwoFactorFailed" as string as ErrorType;
}
