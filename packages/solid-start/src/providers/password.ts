// Written by scripts/providers.mjs: do not edit (run `node scripts/providers.mjs`).
/**
 * The `password` provider of `@gatehousejs/core`, for SolidStart apps: the same module.
 * @module
 */
export * from "@gatehousejs/core/providers/password";
export { default } from "@gatehousejs/core/providers/password";
