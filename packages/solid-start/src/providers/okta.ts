/**
 * The Okta provider of `@gatehousejs/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehousejs/core/providers/okta";
export { default } from "@gatehousejs/core/providers/okta";
