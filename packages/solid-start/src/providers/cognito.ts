/**
 * The Amazon Cognito provider of `@gatehousejs/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehousejs/core/providers/cognito";
export { default } from "@gatehousejs/core/providers/cognito";
