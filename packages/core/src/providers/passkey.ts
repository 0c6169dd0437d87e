/**
 * Passkeys: WebAuthn with discoverable credentials and user verification required.
 * @module
 */
import type { WebAuthnConfig } from "../lib/types/providers.js";
import WebAuthn, { type WebAuthnOptions } from "./webauthn.js";

export type { WebAuthnConfig } from "../lib/types/providers.js";

/**
 * A passkey provider: a WebAuthn provider (id `passkey`) whose credentials are discoverable
 * (`residentKey: "required"`) and whose ceremonies require user verification.
 *
 * @example
 * ```ts
 * providers: [Passkey()]
 * ```
 */
export default function Passkey(options: WebAuthnOptions = {}): WebAuthnConfig {
  return WebAuthn({
    id: "passkey",
    name: "Passkey",
    ...options,
    registrationOptions: {
      authenticatorSelection: { residentKey: "required", userVerification: "required" },
      ...options.registrationOptions,
    },
    authenticationOptions: { userVerification: "required", ...options.authenticationOptions },
  });
}
