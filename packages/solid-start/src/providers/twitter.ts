/**
 * The X (Twitter) provider of `@gatehousejs/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehousejs/core/providers/twitter";
export { default } from "@gatehousejs/core/providers/twitter";
