/**
 * The Amazon Cognito provider of `@gatehouse/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehouse/core/providers/cognito";
export { default } from "@gatehouse/core/providers/cognito";
