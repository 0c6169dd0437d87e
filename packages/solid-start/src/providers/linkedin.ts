/**
 * The LinkedIn provider of `@gatehousejs/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehousejs/core/providers/linkedin";
export { default } from "@gatehousejs/core/providers/linkedin";
