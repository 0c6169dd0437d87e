/**
 * The Twitch provider of `@gatehouse/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehouse/core/providers/twitch";
export { default } from "@gatehouse/core/providers/twitch";
