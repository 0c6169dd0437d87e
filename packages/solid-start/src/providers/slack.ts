/**
 * The Slack provider of `@gatehousejs/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehousejs/core/providers/slack";
export { default } from "@gatehousejs/core/providers/slack";
