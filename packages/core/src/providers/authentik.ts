/**
 * authentik sign-in (OpenID Connect, endpoints discovered from the application's issuer).
 * @module
 */
import type { OAuthConfig } from "../lib/types/providers.js";
import { firstText } from "./_shared/claims.js";

/**
 * The claims of an authentik ID token for the `openid profile email` scopes, as its default
 * scope mappings ("authentik default OAuth Mapping: OpenID …") produce them.
 */
export interface AuthentikProfile {
  /** The user's id for this application (by default a hash of the user id). */
  sub: string;
  /** The user's full name. */
  name?: string;
  given_name?: string;
  /** The username. */
  preferred_username?: string;
  nickname?: string;
  /** The names of the user's groups. */
  groups?: string[];
  email?: string;
  email_verified?: boolean;
  /** Only with a custom scope mapping: authentik sends no picture by default. */
  picture?: string;
  [claim: string]: unknown;
}

/** Options of {@link Authentik}: credentials, the application's issuer, and any provider field to override. */
export type AuthentikOptions = Partial<Omit<OAuthConfig<AuthentikProfile>, "type">>;

const logo =
  "data:image/svg+xml;utf8," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#ffffff" d="M4 15h16v4H4zm2-4h2v3H6zm4-3h2v6h-2zm4 2h2v4h-2zm4-4h2v8h-2z"/></svg>',
  );

/**
 * The authentik provider. The issuer includes the application's slug,
 * `https://<host>/application/o/<slug>/` — with its trailing slash, exactly as the provider's
 * "OpenID Configuration Issuer" shows it — from the `issuer` option or `AUTH_AUTHENTIK_ISSUER`; a
 * configuration without one is refused with an error naming that variable. Client id and secret
 * (a confidential OAuth2/OpenID provider) come from the options or `AUTH_AUTHENTIK_ID` and
 * `AUTH_AUTHENTIK_SECRET`. The callback URL to register in the provider's "Redirect URIs" is
 * `<origin><basePath>/callback/authentik`.
 *
 * Sign-in uses PKCE, state and nonce, the scope `openid profile email` and
 * `client_secret_basic`. authentik sends no picture by default, so `image` is null unless a scope
 * mapping adds `picture`. An address it marks `email_verified: false` never finds, links or is
 * stored as a user's address.
 *
 * @example
 * ```ts
 * import Authentik from "@gatehousejs/core/providers/authentik";
 *
 * const provider = Authentik({ issuer: "https://auth.example.com/application/o/my-app/" });
 * ```
 */
export default function Authentik(options: AuthentikOptions = {}): OAuthConfig<AuthentikProfile> {
  return {
    id: "authentik",
    name: "authentik",
    authorization: { params: { scope: "openid profile email" } },
    checks: ["pkce", "state", "nonce"],
    client: { token_endpoint_auth_method: "client_secret_basic" },
    profile(profile) {
      return {
        id: profile.sub,
        name: firstText(profile.name, profile.nickname, profile.preferred_username),
        email: firstText(profile.email),
        image: firstText(profile.picture),
      };
    },
    style: { bg: "#fd4b2d", text: "#ffffff", brandColor: "#fd4b2d", logo },
    ...options,
    type: "oidc",
  };
}
