/**
 * The Spotify provider of `@gatehouse/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehouse/core/providers/spotify";
export { default } from "@gatehouse/core/providers/spotify";
