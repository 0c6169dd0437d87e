// Written by scripts/providers.mjs: do not edit (run `node scripts/providers.mjs`).
/**
 * The `auth0` provider of `@gatehousejs/core`, for SolidStart apps: the same module.
 * @module
 */
export * from "@gatehousejs/core/providers/auth0";
export { default } from "@gatehousejs/core/providers/auth0";
