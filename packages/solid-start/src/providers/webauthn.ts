/**
 * The WebAuthn provider of `@gatehouse/core`, for SolidStart apps.
 * @module
 */
export {
  DEFAULT_WEBAUTHN_TIMEOUT,
  default,
  type RelyingParty,
  type WebAuthnConfig,
  type WebAuthnOptions,
  type WebAuthnUserInfo,
} from "@gatehouse/core/providers/webauthn";
