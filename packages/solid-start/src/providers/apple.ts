/**
 * The Apple provider of `@gatehouse/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehouse/core/providers/apple";
export { default } from "@gatehouse/core/providers/apple";
