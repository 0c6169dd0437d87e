/**
 * The GitLab provider of `@gatehousejs/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehousejs/core/providers/gitlab";
export { default } from "@gatehousejs/core/providers/gitlab";
