/**
 * The OpenID Connect provider of `@gatehouse/core`, for SolidStart apps.
 * @module
 */
export { default, type OAuthConfig, type OIDCOptions } from "@gatehouse/core/providers/oidc";
