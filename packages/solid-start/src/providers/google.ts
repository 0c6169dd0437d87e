/**
 * The Google provider of `@gatehouse/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehouse/core/providers/google";
export { default } from "@gatehouse/core/providers/google";
