/**
 * The Spotify provider of `@gatehousejs/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehousejs/core/providers/spotify";
export { default } from "@gatehousejs/core/providers/spotify";
