/**
 * The OpenID Connect provider of `@gatehousejs/core`, for SolidStart apps.
 * @module
 */
export { default, type OAuthConfig, type OIDCOptions } from "@gatehousejs/core/providers/oidc";
