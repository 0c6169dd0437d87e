/**
 * The Discord provider of `@gatehouse/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehouse/core/providers/discord";
export { default } from "@gatehouse/core/providers/discord";
