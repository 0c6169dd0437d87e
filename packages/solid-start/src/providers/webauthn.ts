/**
 * The WebAuthn provider of `@gatehousejs/core`, for SolidStart apps.
 * @module
 */
export {
  DEFAULT_WEBAUTHN_TIMEOUT,
  default,
  type RelyingParty,
  type WebAuthnConfig,
  type WebAuthnOptions,
  type WebAuthnUserInfo,
} from "@gatehousejs/core/providers/webauthn";
