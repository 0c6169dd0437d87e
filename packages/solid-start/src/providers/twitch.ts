/**
 * The Twitch provider of `@gatehousejs/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehousejs/core/providers/twitch";
export { default } from "@gatehousejs/core/providers/twitch";
