/**
 * The Facebook provider of `@gatehousejs/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehousejs/core/providers/facebook";
export { default } from "@gatehousejs/core/providers/facebook";
