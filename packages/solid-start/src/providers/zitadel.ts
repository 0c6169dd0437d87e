/**
 * The ZITADEL provider of `@gatehousejs/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehousejs/core/providers/zitadel";
export { default } from "@gatehousejs/core/providers/zitadel";
