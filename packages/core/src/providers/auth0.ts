/**
 * Auth0 sign-in (OpenID Connect, endpoints discovered from the tenant's issuer).
 * @module
 */
import type { OAuthConfig } from "../lib/types/providers.js";
import { firstText } from "./_shared/claims.js";

/**
 * The claims of an Auth0 ID token for the `openid profile email` scopes: the OpenID standard
 * claims Auth0 fills from the user's profile (the same ones its `/userinfo` endpoint returns).
 */
export interface Auth0Profile {
  /** The user's id, `<connection>|<id>` (for example `auth0|64f…` or `google-oauth2|1…`). */
  sub: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  middle_name?: string;
  nickname?: string;
  preferred_username?: string;
  /** The avatar URL (Gravatar, or the social connection's picture). */
  picture?: string;
  /** Present with the `email` scope when the user has an address. */
  email?: string;
  /** Whether Auth0 (or the upstream identity provider) verified the address. */
  email_verified?: boolean;
  locale?: string;
  updated_at?: string;
  [claim: string]: unknown;
}

/** Options of {@link Auth0}: credentials, the tenant's issuer, and any provider field to override. */
export type Auth0Options = Partial<Omit<OAuthConfig<Auth0Profile>, "type">>;

const logo =
  "data:image/svg+xml;utf8," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#ffffff" d="M12 2 4 6.5v5.2C4 16.6 7.4 20.6 12 22c4.6-1.4 8-5.4 8-10.3V6.5zm0 4 2 5.2-2 4.8-2-4.8z"/></svg>',
  );

/**
 * The Auth0 provider. The issuer is your tenant's domain (`https://<tenant>.<region>.auth0.com/`
 * or a custom domain), from the `issuer` option or `AUTH_AUTH0_ISSUER`; a configuration without
 * one is refused with an error naming that variable. Client id and secret come from the options or
 * `AUTH_AUTH0_ID` and `AUTH_AUTH0_SECRET`. The callback URL to register in the application's
 * "Allowed Callback URLs" is `<origin><basePath>/callback/auth0`.
 *
 * Sign-in uses PKCE, state and nonce and the scope `openid profile email`; the client secret is
 * sent in the token request's body ("Post", Auth0's default for a Regular Web Application: set
 * `client: { token_endpoint_auth_method: "client_secret_basic" }` for "Basic"). An address Auth0
 * marks `email_verified: false` never finds, links or is stored as a user's address.
 *
 * @example
 * ```ts
 * import Auth0 from "@gatehousejs/core/providers/auth0";
 *
 * const provider = Auth0({ issuer: "https://example.eu.auth0.com/" });
 * ```
 */
export default function Auth0(options: Auth0Options = {}): OAuthConfig<Auth0Profile> {
  return {
    id: "auth0",
    name: "Auth0",
    authorization: { params: { scope: "openid profile email" } },
    checks: ["pkce", "state", "nonce"],
    // Auth0's default "Token Endpoint Authentication Method" for a Regular Web Application.
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile) {
      return {
        id: profile.sub,
        name: firstText(profile.name, profile.nickname, profile.preferred_username),
        email: firstText(profile.email),
        image: firstText(profile.picture),
      };
    },
    style: { bg: "#eb5424", text: "#ffffff", brandColor: "#eb5424", logo },
    ...options,
    type: "oidc",
  };
}
