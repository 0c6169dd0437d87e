/**
 * A generic OpenID Connect provider for any issuer that publishes discovery metadata.
 * @module
 */
import type { OAuthConfig } from "../lib/types/providers.js";

export type { OAuthConfig } from "../lib/types/providers.js";

/** What {@link OIDC} takes: an issuer (or `AUTH_<ID>_ISSUER`), client credentials, and options. */
export type OIDCOptions = Partial<Omit<OAuthConfig, "type">>;

/**
 * An OpenID Connect provider. Endpoints come from `<issuer>/.well-known/openid-configuration`;
 * the profile is the validated ID token's claims. Credentials and issuer may come from
 * `AUTH_<ID>_ID`, `AUTH_<ID>_SECRET` and `AUTH_<ID>_ISSUER`.
 *
 * An email the issuer marks `email_verified: false` is never used to find, link or store a user;
 * one it marks `true` makes a new user's address proven (docs/security.md).
 *
 * @example
 * ```ts
 * OIDC({ id: "corp", name: "Corp SSO", issuer: "https://sso.corp.example", clientId, clientSecret })
 * ```
 */
export default function OIDC(options: OIDCOptions = {}): OAuthConfig {
  return {
    id: "oidc",
    name: "OpenID Connect",
    ...options,
    type: "oidc",
  };
}
