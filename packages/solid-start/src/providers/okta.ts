/**
 * The Okta provider of `@gatehouse/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehouse/core/providers/okta";
export { default } from "@gatehouse/core/providers/okta";
