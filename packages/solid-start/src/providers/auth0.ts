/**
 * The Auth0 provider of `@gatehousejs/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehousejs/core/providers/auth0";
export { default } from "@gatehousejs/core/providers/auth0";
