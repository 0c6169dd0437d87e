/**
 * The GitLab provider of `@gatehouse/core`, for SolidStart apps.
 * @module
 */
export * from "@gatehouse/core/providers/gitlab";
export { default } from "@gatehouse/core/providers/gitlab";
