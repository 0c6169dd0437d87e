/**
 * Keycloak sign-in (OpenID Connect, endpoints discovered from the realm's issuer).
 * @module
 */
import type { OAuthConfig } from "../lib/types/providers.js";
import { firstText, fullName } from "./_shared/claims.js";

/**
 * The claims of a Keycloak ID token for the `openid profile email` scopes, as the realm's default
 * `profile` and `email` client scopes map them from the user.
 */
export interface KeycloakProfile {
  /** The Keycloak user id (a UUID). */
  sub: string;
  /** First and last name, joined by the `full name` mapper. */
  name?: string;
  given_name?: string;
  family_name?: string;
  /** The username. */
  preferred_username?: string;
  /** From the user attribute `picture`, when the realm's users have one. */
  picture?: string;
  email?: string;
  /** The user's "Email verified" flag. */
  email_verified?: boolean;
  locale?: string;
  /** The client the token was issued to. */
  azp?: string;
  sid?: string;
  [claim: string]: unknown;
}

/** Options of {@link Keycloak}: credentials, the realm's issuer, and any provider field to override. */
export type KeycloakOptions = Partial<Omit<OAuthConfig<KeycloakProfile>, "type">>;

const logo =
  "data:image/svg+xml;utf8," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#ffffff" d="M7 4h10l5 8-5 8H7l-5-8zm2.5 4L7 12l2.5 4H11l-2.5-4L11 8zm3.5 0 2.5 4-2.5 4h1.5l2.5-4-2.5-4z"/></svg>',
  );

/**
 * The Keycloak provider. The issuer is the realm URL, `https://<host>/realms/<realm>` (Keycloak
 * before version 17 served it under `/auth/realms/<realm>`), from the `issuer` option or
 * `AUTH_KEYCLOAK_ISSUER`; a configuration without one is refused with an error naming that
 * variable. Client id and secret (the client's "Client authentication: On" credentials) come from
 * the options or `AUTH_KEYCLOAK_ID` and `AUTH_KEYCLOAK_SECRET`. The callback URL to register in
 * the client's "Valid redirect URIs" is `<origin><basePath>/callback/keycloak`.
 *
 * Sign-in uses PKCE (S256), state and nonce, the scope `openid profile email` and
 * `client_secret_basic`. An address the realm marks `email_verified: false` never finds, links or
 * is stored as a user's address.
 *
 * @example
 * ```ts
 * import Keycloak from "@gatehousejs/core/providers/keycloak";
 *
 * const provider = Keycloak({ issuer: "https://sso.example.com/realms/staff" });
 * ```
 */
export default function Keycloak(options: KeycloakOptions = {}): OAuthConfig<KeycloakProfile> {
  return {
    id: "keycloak",
    name: "Keycloak",
    authorization: { params: { scope: "openid profile email" } },
    checks: ["pkce", "state", "nonce"],
    client: { token_endpoint_auth_method: "client_secret_basic" },
    profile(profile) {
      return {
        id: profile.sub,
        name: firstText(
          profile.name,
          fullName(profile.given_name, profile.family_name),
          profile.preferred_username,
        ),
        email: firstText(profile.email),
        image: firstText(profile.picture),
      };
    },
    style: { bg: "#4d4d4d", text: "#ffffff", brandColor: "#4d4d4d", logo },
    ...options,
    type: "oidc",
  };
}
