/**
 * Sign In with LinkedIn using OpenID Connect.
 * @module
 */
import type { OAuthConfig } from "../lib/types/providers.js";

/**
 * The member's claims, from the ID token or `GET https://api.linkedin.com/v2/userinfo`
 * (LinkedIn's "Sign In with LinkedIn using OpenID Connect"). `picture` is absent without a
 * profile photo; `email` and `email_verified` need the `email` scope.
 */
export interface LinkedInProfile {
  /** The member's id for this application. */
  sub: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  picture?: string;
  /** The member's locale, such as `en-US`. */
  locale?: string;
  email?: string;
  /** A boolean, or in the ID token the string `"true"` or `"false"`. */
  email_verified?: boolean | "true" | "false";
  [claim: string]: unknown;
}

/** Options of {@link LinkedIn}. */
export interface LinkedInOptions extends Partial<Omit<OAuthConfig<LinkedInProfile>, "type">> {
  /** Scopes. Default `openid profile email`. */
  scope?: string;
}

export const LINKEDIN_ISSUER = "https://www.linkedin.com/oauth";
export const DEFAULT_LINKEDIN_SCOPE = "openid profile email";

const logo =
  "data:image/svg+xml;utf8," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#fff" d="M4 9h3.5v11H4zM5.8 3.5a2 2 0 1 1 0 4 2 2 0 0 1 0-4zM9.8 9h3.3v1.5h.1c.5-.9 1.6-1.8 3.3-1.8 3.5 0 4.1 2.3 4.1 5.3v6h-3.5v-5.3c0-1.3 0-2.9-1.8-2.9s-2 1.4-2 2.8V20H9.8z"/></svg>',
  );

/**
 * The LinkedIn provider (OpenID Connect, issuer `https://www.linkedin.com/oauth`). Credentials
 * from `AUTH_LINKEDIN_ID` and `AUTH_LINKEDIN_SECRET`; the app needs the "Sign In with LinkedIn
 * using OpenID Connect" product. Register the redirect URL `<origin><basePath>/callback/linkedin`.
 *
 * LinkedIn takes the client secret in the token request's body (`client_secret_post`) and offers
 * PKCE to native apps only, so the flow is checked by `state`. An address LinkedIn marks
 * `email_verified: false` never finds, links or is stored as a user's address.
 *
 * @example
 * ```ts
 * LinkedIn({ clientId: process.env.LINKEDIN_ID, clientSecret: process.env.LINKEDIN_SECRET })
 * ```
 */
export default function LinkedIn(options: LinkedInOptions = {}): OAuthConfig<LinkedInProfile> {
  const { scope = DEFAULT_LINKEDIN_SCOPE, authorization, ...rest } = options;
  const params = typeof authorization === "object" ? authorization.params : undefined;
  return {
    id: "linkedin",
    name: "LinkedIn",
    issuer: LINKEDIN_ISSUER,
    authorization: {
      ...(typeof authorization === "string" ? { url: authorization } : authorization),
      params: { scope, ...params },
    },
    client: { token_endpoint_auth_method: "client_secret_post" },
    checks: ["state"],
    profile(profile) {
      const name =
        profile.name ||
        [profile.given_name, profile.family_name].filter((part) => !!part).join(" ");
      return {
        id: profile.sub,
        name: name || null,
        email: profile.email || null,
        image: profile.picture || null,
      };
    },
    style: { bg: "#0a66c2", text: "#ffffff", brandColor: "#0a66c2", logo },
    ...rest,
    type: "oidc",
  };
}
