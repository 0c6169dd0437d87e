/**
 * The Apple provider of `@gatehousejs/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehousejs/core/providers/apple";
export { default } from "@gatehousejs/core/providers/apple";
