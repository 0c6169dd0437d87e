// Written by scripts/providers.mjs: do not edit (run `node scripts/providers.mjs`).
/**
 * The `twitch` provider of `@gatehousejs/core`, for SolidStart apps: the same module.
 * @module
 */
export * from "@gatehousejs/core/providers/twitch";
export { default } from "@gatehousejs/core/providers/twitch";
