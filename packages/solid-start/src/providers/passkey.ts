/**
 * The passkey provider of `@gatehouse/core`, for SolidStart apps.
 * @module
 */
export { default, type WebAuthnConfig } from "@gatehouse/core/providers/passkey";
