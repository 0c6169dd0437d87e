// Written by scripts/providers.mjs: do not edit (run `node scripts/providers.mjs`).
/**
 * The `github` provider of `@gatehousejs/core`, for SolidStart apps: the same module.
 * @module
 */
export * from "@gatehousejs/core/providers/github";
export { default } from "@gatehousejs/core/providers/github";
