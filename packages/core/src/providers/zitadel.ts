/**
 * ZITADEL sign-in (OpenID Connect, endpoints discovered from the instance's issuer; the profile
 * read from the userinfo endpoint).
 * @module
 */
import type { OAuthConfig } from "../lib/types/providers.js";
import { firstText, fullName } from "./_shared/claims.js";

/**
 * What ZITADEL's userinfo endpoint (`/oidc/v1/userinfo`) returns for the `openid profile email`
 * scopes: the OpenID standard claims, plus ZITADEL's `urn:zitadel:iam:…` claims when asked for.
 */
export interface ZitadelProfile {
  /** The ZITADEL user id. */
  sub: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  nickname?: string;
  /** The login name (`user@org.domain`). */
  preferred_username?: string;
  /** The avatar URL, when the user uploaded one. */
  picture?: string;
  gender?: string;
  locale?: string;
  updated_at?: number;
  email?: string;
  email_verified?: boolean;
  phone_number?: string;
  phone_number_verified?: boolean;
  "urn:zitadel:iam:user:resourceowner:id"?: string;
  "urn:zitadel:iam:user:resourceowner:name"?: string;
  "urn:zitadel:iam:org:project:roles"?: Record<string, Record<string, string>>;
  [claim: string]: unknown;
}

/** Options of {@link Zitadel}: credentials, the instance's issuer, and any provider field to override. */
export type ZitadelOptions = Partial<Omit<OAuthConfig<ZitadelProfile>, "type">>;

const logo =
  "data:image/svg+xml;utf8," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#ffffff" d="m12 2 9 16H3zm0 5-4.6 8.5h9.2z"/></svg>',
  );

/**
 * The ZITADEL provider. The issuer is the instance's domain (`https://<instance>.zitadel.cloud`
 * or your own), from the `issuer` option or `AUTH_ZITADEL_ISSUER`; a configuration without one is
 * refused with an error naming that variable. Client id and secret (a Web application with the
 * "Code" authentication method) come from the options or `AUTH_ZITADEL_ID` and
 * `AUTH_ZITADEL_SECRET`. The callback URL to register as the application's redirect URI is
 * `<origin><basePath>/callback/zitadel`.
 *
 * ZITADEL's ID tokens carry no name, email or picture unless the application turns on "User Info
 * inside ID Token", so the profile is read from the userinfo endpoint (`idToken: false`), whose
 * `sub` must match the validated ID token's. Sign-in uses PKCE, state and nonce, the scope
 * `openid profile email` and `client_secret_basic`. An address ZITADEL marks
 * `email_verified: false` never finds, links or is stored as a user's address.
 *
 * @example
 * ```ts
 * import Zitadel from "@gatehousejs/core/providers/zitadel";
 *
 * const provider = Zitadel({ issuer: "https://example-abc123.zitadel.cloud" });
 * ```
 */
export default function Zitadel(options: ZitadelOptions = {}): OAuthConfig<ZitadelProfile> {
  return {
    id: "zitadel",
    name: "ZITADEL",
    authorization: { params: { scope: "openid profile email" } },
    checks: ["pkce", "state", "nonce"],
    client: { token_endpoint_auth_method: "client_secret_basic" },
    idToken: false,
    profile(profile) {
      return {
        id: profile.sub,
        name: firstText(
          profile.name,
          fullName(profile.given_name, profile.family_name),
          profile.nickname,
          profile.preferred_username,
        ),
        email: firstText(profile.email),
        image: firstText(profile.picture),
      };
    },
    style: { bg: "#2a2e3d", text: "#ffffff", brandColor: "#ff6d6d", logo },
    ...options,
    type: "oidc",
  };
}
