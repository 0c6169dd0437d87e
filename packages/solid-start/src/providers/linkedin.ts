/**
 * The LinkedIn provider of `@gatehouse/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehouse/core/providers/linkedin";
export { default } from "@gatehouse/core/providers/linkedin";
