/**
 * Spotify sign-in (OAuth 2 with PKCE, profile from the Web API's `/v1/me`).
 * @module
 */
import type { OAuthConfig } from "../lib/types/providers.js";
import { firstText } from "./_shared/claims.js";

/** One of a Spotify user's profile images. */
export interface SpotifyImage {
  url: string;
  height: number | null;
  width: number | null;
}

/**
 * The current user, as `GET https://api.spotify.com/v1/me` returns it. `email` needs the
 * `user-read-email` scope; `country`, `product` and `explicit_content` need `user-read-private`.
 */
export interface SpotifyProfile {
  /** The Spotify user id. */
  id: string;
  /** The name on the profile; null when the user has none. */
  display_name: string | null;
  /** As entered by the user at sign-up. Spotify says it is unverified. */
  email?: string;
  /** The profile images, possibly none. */
  images: SpotifyImage[];
  country?: string;
  product?: string;
  explicit_content?: { filter_enabled: boolean; filter_locked: boolean };
  external_urls: { spotify: string };
  followers: { href: string | null; total: number };
  href: string;
  type: "user";
  uri: string;
  [field: string]: unknown;
}

/** Options of {@link Spotify}. */
export interface SpotifyOptions extends Partial<Omit<OAuthConfig<SpotifyProfile>, "type">> {
  /** Scopes, space-separated. Default `user-read-email`. */
  scope?: string;
}

const logo =
  "data:image/svg+xml;utf8," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#000000" d="M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20zm4.4 14.5a.8.8 0 0 1-1 .3c-2.8-1.7-6.2-2-10.3-1.1a.8.8 0 1 1-.3-1.5c4.5-1 8.3-.6 11.4 1.3.3.2.4.7.2 1zm1.2-2.9a.9.9 0 0 1-1.3.3c-3.1-1.9-7.9-2.5-11.6-1.4a.9.9 0 1 1-.5-1.8c4.2-1.3 9.5-.7 13.1 1.6.4.3.5.8.3 1.3zm.1-3C14 8.4 7.9 8.2 4.4 9.3a1.1 1.1 0 1 1-.6-2.1c4-1.2 10.8-1 15 1.5a1.1 1.1 0 0 1-1.1 1.9z"/></svg>',
  );

/** The largest of the images (by width, when Spotify gives one), else the first. */
function largest(images: SpotifyImage[] | undefined): string | null {
  if (!Array.isArray(images) || images.length === 0) return null;
  const sorted = [...images].sort((a, b) => (b.width ?? 0) - (a.width ?? 0));
  return firstText(sorted[0]?.url);
}

/**
 * The Spotify provider. Client id and secret come from the options or `AUTH_SPOTIFY_ID` and
 * `AUTH_SPOTIFY_SECRET`. The callback URL to register in the app's "Redirect URIs" is
 * `<origin><basePath>/callback/spotify` (Spotify accepts plain `http` only for loopback
 * addresses such as `http://127.0.0.1:3000`, not `localhost`).
 *
 * Sign-in uses PKCE and state, the scope `user-read-email`, and `client_secret_basic`; the
 * profile is `GET https://api.spotify.com/v1/me`. `image` is the largest profile image, or null
 * when there is none. Spotify documents the email as unverified, so it is shown as the user's
 * `email` but never finds, links or is stored as a user's address (`emailIsAddress`).
 *
 * @example
 * ```ts
 * import Spotify from "@gatehousejs/core/providers/spotify";
 *
 * const provider = Spotify({ scope: "user-read-email user-read-private" });
 * ```
 */
export default function Spotify(options: SpotifyOptions = {}): OAuthConfig<SpotifyProfile> {
  const { scope = "user-read-email", ...rest } = options;
  return {
    id: "spotify",
    name: "Spotify",
    authorization: { url: "https://accounts.spotify.com/authorize", params: { scope } },
    token: "https://accounts.spotify.com/api/token",
    userinfo: "https://api.spotify.com/v1/me",
    checks: ["pkce", "state"],
    client: { token_endpoint_auth_method: "client_secret_basic" },
    profile(profile) {
      return {
        id: profile.id,
        name: firstText(profile.display_name),
        email: firstText(profile.email),
        image: largest(profile.images),
      };
    },
    // Spotify: "This email address is unverified; there is no proof that it actually belongs
    // to the user." It is shown, never trusted.
    emailIsAddress: () => false,
    style: { bg: "#1ed760", text: "#000000", brandColor: "#1ed760", logo },
    ...rest,
    type: "oauth",
  };
}
