/**
 * The Google provider of `@gatehousejs/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehousejs/core/providers/google";
export { default } from "@gatehousejs/core/providers/google";
