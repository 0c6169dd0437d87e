/**
 * The sign-in page's messages, by `?error=` value. A feature that sends users back to the sign-in
 * page with a value of its own declares the value (`SignInPageErrors`, by declaration merging) and
 * gives its message here. This module holds no HTML: a feature may import it when it is installed
 * without loading the page.
 */
import { installedFeatures } from "../feature.js";
import type { SignInPageErrorParam } from "../types/config.js";

/** A message, or a function of the raw `?code=` (untrusted: it may only select or count). */
export type SignInErrorMessage = string | ((code: string | undefined) => string);

const TRY_ANOTHER_ACCOUNT = "Try signing in with a different account.";
const GENERIC = "Unable to sign in.";

/** "Too many attempts" with the wait from `?code=` (whole seconds), rounded up to minutes past one. */
function rateLimited(code: string | undefined): string {
  const seconds = code && /^[1-9]\d{0,6}$/.test(code) ? Number(code) : 0;
  if (seconds === 0) return "Too many attempts. Please wait a moment, then try again.";
  const minutes = Math.ceil(seconds / 60);
  const wait =
    seconds < 60
      ? `${seconds} second${seconds === 1 ? "" : "s"}`
      : `${minutes} minute${minutes === 1 ? "" : "s"}`;
  return `Too many attempts. Please try again in ${wait}.`;
}

// A Map, so that `?error=constructor` and friends find nothing and get the generic message.
const messages = new Map<string, SignInErrorMessage>([
  ["Signin", TRY_ANOTHER_ACCOUNT],
  ["OAuthSignin", TRY_ANOTHER_ACCOUNT],
  ["OAuthCallbackError", TRY_ANOTHER_ACCOUNT],
  ["OAuthCreateAccount", TRY_ANOTHER_ACCOUNT],
  ["EmailCreateAccount", TRY_ANOTHER_ACCOUNT],
  ["Callback", TRY_ANOTHER_ACCOUNT],
  [
    "OAuthAccountNotLinked",
    "This email is already linked to another account. To confirm your identity, sign in " +
      "with the account you used originally.",
  ],
  [
    "EmailSignin",
    (code) =>
      code === "invalid_email"
        ? "That email address does not look right. Check it and try again."
        : "The sign in email could not be sent. Please try again later.",
  ],
  ["CredentialsSignin", "Sign in failed. Check that the details you provided are correct."],
  ["SessionRequired", "Please sign in to access this page."],
  ["MissingCSRF", "The sign in form expired. Please try again."],
  ["AccountNotLinked", "This passkey is not linked to any account. Sign in another way first."],
  // Not a `SignInPageErrorParam`, but an `InvalidCheck` sign-in error lands here by its type.
  ["InvalidCheck", "The sign in took too long or was interrupted. Please try again."],
  // The rate-limit feature's value (features/rate-limit/types.ts).
  ["RateLimited", rateLimited],
]);

/**
 * Gives the sign-in page the message of an error value a feature declared in `SignInPageErrors`
 * (a later call for the same value replaces the message).
 *
 * @example
 * ```ts
 * addSignInErrorMessage("TwoFactorFailed", "That code did not work. Please try again.");
 * ```
 */
export function addSignInErrorMessage(
  error: SignInPageErrorParam,
  message: SignInErrorMessage,
): void {
  messages.set(error, message);
}

/** The user-facing message for a `?error=` value (and `?code=`) of the sign-in page. */
export function signInErrorMessage(error: string, code?: string): string {
  const message = messages.get(error) ?? featureMessage(error) ?? GENERIC;
  return typeof message === "string" ? message : message(code);
}

/** The words an installed feature declared for one of its error types (../feature.ts `errors`). */
function featureMessage(error: string): SignInErrorMessage | undefined {
  for (const feature of installedFeatures()) {
    const found = feature.errors?.find((e) => e.type === error && e.signInMessage);
    if (found) return found.signInMessage;
  }
  return undefined;
}
