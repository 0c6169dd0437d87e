/**
 * The refusals of the passkey routes: stable `error` values a client may `switch` on, with the
 * words shown to the user. They are answers, not thrown errors: each route says them as JSON
 * (./answer.ts), and the log gets the value alone, never the credential id asked for.
 */

/** Every refusal of the passkey routes, by its `error` value. */
export const PASSKEY_REFUSALS = {
  /** Nobody is signed in (401). */
  Unauthenticated: { status: 401, message: "Sign in to manage your passkeys." },
  /** The body names no credential id (400). */
  InvalidPasskey: { status: 400, message: "Say which passkey to remove." },
  /**
   * No passkey of the user has this id: unknown, or another user's, with the same answer so that
   * it tells nothing about anybody else's passkeys (404).
   */
  UnknownPasskey: { status: 404, message: "You have no passkey with that id." },
  /** The passkey is the user's only way to sign in (400). */
  LastWayIn: {
    status: 400,
    message:
      "This passkey is the only way your account signs in: add another way before removing it.",
  },
  /** The site's adapter cannot delete passkeys (`deleteAuthenticator`, `unlinkAccount`) (400). */
  PasskeyRemovalUnsupported: { status: 400, message: "This site cannot remove passkeys." },
  /** No passkey (WebAuthn) provider is configured: the routes are off (404). */
  PasskeysOff: { status: 404, message: "Passkeys are not used on this site." },
} as const;

/** A refusal's `error` value. */
export type PasskeyRefusal = keyof typeof PASSKEY_REFUSALS;
