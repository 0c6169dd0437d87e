/**
 * The X (Twitter) provider of `@gatehouse/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehouse/core/providers/twitter";
export { default } from "@gatehouse/core/providers/twitter";
