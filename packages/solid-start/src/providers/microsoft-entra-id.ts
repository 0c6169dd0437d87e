/**
 * The Microsoft Entra ID provider of `@gatehousejs/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehousejs/core/providers/microsoft-entra-id";
export { default } from "@gatehousejs/core/providers/microsoft-entra-id";
