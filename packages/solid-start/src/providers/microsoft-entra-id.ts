/**
 * The Microsoft Entra ID provider of `@gatehouse/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehouse/core/providers/microsoft-entra-id";
export { default } from "@gatehouse/core/providers/microsoft-entra-id";
