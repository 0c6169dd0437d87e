/**
 * The GitHub provider of `@gatehousejs/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehousejs/core/providers/github";
export { default } from "@gatehousejs/core/providers/github";
