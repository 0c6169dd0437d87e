/**
 * The authentik provider of `@gatehouse/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehouse/core/providers/authentik";
export { default } from "@gatehouse/core/providers/authentik";
