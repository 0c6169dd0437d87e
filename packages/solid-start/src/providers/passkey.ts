/**
 * The passkey provider of `@gatehousejs/core`, for SolidStart apps.
 * @module
 */
export { default, type WebAuthnConfig } from "@gatehousejs/core/providers/passkey";
