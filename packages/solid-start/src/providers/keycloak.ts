/**
 * The Keycloak provider of `@gatehousejs/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehousejs/core/providers/keycloak";
export { default } from "@gatehousejs/core/providers/keycloak";
