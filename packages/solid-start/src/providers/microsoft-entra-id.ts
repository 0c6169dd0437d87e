// Written by scripts/providers.mjs: do not edit (run `node scripts/providers.mjs`).
/**
 * The `microsoft-entra-id` provider of `@gatehousejs/core`, for SolidStart apps: the same module.
 * @module
 */
export * from "@gatehousejs/core/providers/microsoft-entra-id";
export { default } from "@gatehousejs/core/providers/microsoft-entra-id";
