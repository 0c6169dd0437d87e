/**
 * The Discord provider of `@gatehousejs/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehousejs/core/providers/discord";
export { default } from "@gatehousejs/core/providers/discord";
