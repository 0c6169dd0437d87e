// Written by scripts/providers.mjs: do not edit (run `node scripts/providers.mjs`).
/**
 * The `keycloak` provider of `@gatehousejs/core`, for SolidStart apps: the same module.
 * @module
 */
export * from "@gatehousejs/core/providers/keycloak";
export { default } from "@gatehousejs/core/providers/keycloak";
