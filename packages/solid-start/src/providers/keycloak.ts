/**
 * The Keycloak provider of `@gatehouse/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehouse/core/providers/keycloak";
export { default } from "@gatehouse/core/providers/keycloak";
