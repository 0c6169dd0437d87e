/**
 * Google sign-in (OpenID Connect, endpoints discovered from https://accounts.google.com).
 * @module
 */
import type { OAuthConfig } from "../lib/types/providers.js";
import { firstText, fullName } from "./_shared/claims.js";

/**
 * The claims of a Google ID token for the `openid email profile` scopes, as Google's OpenID
 * Connect documentation lists them.
 */
export interface GoogleProfile {
  iss: string;
  /** The user's Google account id: unique and never reused (unlike the address). */
  sub: string;
  aud: string;
  /** The client the token was issued to. */
  azp?: string;
  iat: number;
  exp: number;
  at_hash?: string;
  nonce?: string;
  /** With the `email` scope. */
  email?: string;
  email_verified?: boolean;
  /** The Google Workspace (or Cloud) domain of the user, absent for consumer accounts. */
  hd?: string;
  /** With the `profile` scope (may be missing even then). */
  name?: string;
  given_name?: string;
  family_name?: string;
  picture?: string;
  locale?: string;
  [claim: string]: unknown;
}

/** Options of {@link Google}. */
export type GoogleOptions = Partial<Omit<OAuthConfig<GoogleProfile>, "type">>;

/** Google's issuer, exactly as its discovery document and ID tokens write it. */
export const GOOGLE_ISSUER = "https://accounts.google.com";

const logo =
  "data:image/svg+xml;utf8," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#4285f4" d="M21.6 12.2c0-.7-.1-1.4-.2-2H12v3.8h5.4a4.6 4.6 0 0 1-2 3v2.5h3.2c1.9-1.7 3-4.3 3-7.3z"/><path fill="#34a853" d="M12 22c2.7 0 5-.9 6.6-2.5l-3.2-2.5c-.9.6-2 1-3.4 1a6 6 0 0 1-5.6-4.1H3.1v2.6A10 10 0 0 0 12 22z"/><path fill="#fbbc05" d="M6.4 13.9a6 6 0 0 1 0-3.8V7.5H3.1a10 10 0 0 0 0 9z"/><path fill="#ea4335" d="M12 6a5.4 5.4 0 0 1 3.8 1.5l2.8-2.8A9.6 9.6 0 0 0 12 2a10 10 0 0 0-8.9 5.5l3.3 2.6A6 6 0 0 1 12 6z"/></svg>',
  );

/**
 * The Google provider. Client id and secret come from the options or from `AUTH_GOOGLE_ID` and
 * `AUTH_GOOGLE_SECRET`. The callback URL to register ("Authorized redirect URIs") is
 * `<origin><basePath>/callback/google`. The issuer is `https://accounts.google.com` (the `issuer`
 * option changes it, for a test double say).
 *
 * Sign-in uses PKCE (S256), state and nonce and the scopes `openid email profile`; the profile
 * is the validated ID token's claims. An address Google marks `email_verified: false` never finds,
 * links or is stored as a user's address. For a refresh token, ask for offline access (example).
 *
 * @example
 * ```ts
 * import Google from "@gatehousejs/core/providers/google";
 *
 * const provider = Google({
 *   authorization: {
 *     params: { scope: "openid email profile", access_type: "offline", prompt: "consent" },
 *   },
 * });
 * ```
 */
export default function Google(options: GoogleOptions = {}): OAuthConfig<GoogleProfile> {
  return {
    id: "google",
    name: "Google",
    issuer: GOOGLE_ISSUER,
    authorization: { params: { scope: "openid email profile" } },
    checks: ["pkce", "state", "nonce"],
    profile(profile) {
      return {
        id: profile.sub,
        name: firstText(profile.name) ?? fullName(profile.given_name, profile.family_name),
        email: firstText(profile.email),
        image: firstText(profile.picture),
      };
    },
    style: { bg: "#ffffff", text: "#1f1f1f", brandColor: "#4285f4", logo },
    ...options,
    type: "oidc",
  };
}
