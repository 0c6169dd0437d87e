/**
 * The GitHub provider of `@gatehouse/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehouse/core/providers/github";
export { default } from "@gatehouse/core/providers/github";
