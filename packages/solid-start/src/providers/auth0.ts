/**
 * The Auth0 provider of `@gatehouse/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehouse/core/providers/auth0";
export { default } from "@gatehouse/core/providers/auth0";
