/**
 * The ZITADEL provider of `@gatehouse/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehouse/core/providers/zitadel";
export { default } from "@gatehouse/core/providers/zitadel";
