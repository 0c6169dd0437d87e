/**
 * Okta sign-in (OpenID Connect, endpoints discovered from the org's or authorization server's issuer).
 * @module
 */
import type { OAuthConfig } from "../lib/types/providers.js";
import { firstText } from "./_shared/claims.js";

/**
 * The claims of an Okta ID token for the `openid profile email` scopes, as Okta documents them for
 * its OpenID Connect tokens (base claims plus the `profile` and `email` scope claims).
 */
export interface OktaProfile {
  /** The Okta user id (`00u…`). */
  sub: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  middle_name?: string;
  nickname?: string;
  /** The Okta login, which is usually an email address but is not verified as one. */
  preferred_username?: string;
  profile?: string;
  /** The profile picture URL, when one is set on the user's profile. */
  picture?: string;
  website?: string;
  gender?: string;
  birthdate?: string;
  zoneinfo?: string;
  locale?: string;
  updated_at?: number;
  email?: string;
  email_verified?: boolean;
  /** The id of the identity provider the user signed in with (the Okta org, or a social IdP). */
  idp?: string;
  auth_time?: number;
  [claim: string]: unknown;
}

/** Options of {@link Okta}: credentials, the issuer, and any provider field to override. */
export type OktaOptions = Partial<Omit<OAuthConfig<OktaProfile>, "type">>;

const logo =
  "data:image/svg+xml;utf8," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#ffffff" d="M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18zm0 4.5a4.5 4.5 0 1 1 0 9 4.5 4.5 0 0 1 0-9z"/></svg>',
  );

/**
 * The Okta provider. The issuer is the org authorization server (`https://<org>.okta.com`) or a
 * custom authorization server (`https://<org>.okta.com/oauth2/default`), from the `issuer` option
 * or `AUTH_OKTA_ISSUER`; a configuration without one is refused with an error naming that variable.
 * Client id and secret come from the options or `AUTH_OKTA_ID` and `AUTH_OKTA_SECRET`. The
 * callback URL to register as the app's "Sign-in redirect URI" is `<origin><basePath>/callback/okta`.
 *
 * Sign-in uses PKCE, state and nonce, the scope `openid profile email`, and `client_secret_basic`
 * (Okta's "Client secret" authentication). An address Okta marks `email_verified: false` never
 * finds, links or is stored as a user's address; `preferred_username` is never taken as one.
 *
 * @example
 * ```ts
 * import Okta from "@gatehousejs/core/providers/okta";
 *
 * const provider = Okta({ issuer: "https://example.okta.com/oauth2/default" });
 * ```
 */
export default function Okta(options: OktaOptions = {}): OAuthConfig<OktaProfile> {
  return {
    id: "okta",
    name: "Okta",
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
    style: { bg: "#00297a", text: "#ffffff", brandColor: "#00297a", logo },
    ...options,
    type: "oidc",
  };
}
