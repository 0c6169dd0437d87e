/**
 * The authentik provider of `@gatehousejs/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehousejs/core/providers/authentik";
export { default } from "@gatehousejs/core/providers/authentik";
