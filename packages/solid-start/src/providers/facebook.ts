/**
 * The Facebook provider of `@gatehouse/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehouse/core/providers/facebook";
export { default } from "@gatehouse/core/providers/facebook";
