/**
 * The Slack provider of `@gatehouse/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehouse/core/providers/slack";
export { default } from "@gatehouse/core/providers/slack";
