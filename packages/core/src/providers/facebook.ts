/**
 * Facebook Login (OAuth 2, profile from the Graph API).
 * @module
 */
import type { OAuthConfig } from "../lib/types/providers.js";
import { firstText } from "./_shared/claims.js";

/** The `picture` field of a Graph API user: `{ data: { url, … } }`. */
export interface FacebookPicture {
  data: {
    url: string;
    width?: number;
    height?: number;
    /** True when the user has no profile picture and `url` is Facebook's default silhouette. */
    is_silhouette?: boolean;
  };
}

/**
 * A Facebook user as `GET /me?fields=id,name,email,picture` returns it. Only the fields asked
 * for are present; `email` is absent when the user has no confirmed address or declined the
 * `email` permission.
 */
export interface FacebookProfile {
  /** The app-scoped user id. */
  id: string;
  name?: string;
  first_name?: string;
  last_name?: string;
  email?: string;
  picture?: FacebookPicture;
  [field: string]: unknown;
}

/** Options of {@link Facebook}. */
export interface FacebookOptions extends Partial<Omit<OAuthConfig<FacebookProfile>, "type">> {
  /** The Graph API version in every URL. Default {@link FACEBOOK_GRAPH_VERSION}. */
  version?: string;
  /** The user fields to ask for; `id` is always added. Default `id,name,email,picture`. */
  fields?: string[];
  /** Permissions, comma-separated. Default `public_profile,email`. */
  scope?: string;
}

/**
 * The Graph API version Gatehouse calls by default: v24.0 (October 2025). Facebook keeps each
 * version for at least two years after the next one ships; set `version` to move on.
 */
export const FACEBOOK_GRAPH_VERSION = "v24.0";

const logo =
  "data:image/svg+xml;utf8," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#ffffff" d="M13.5 22v-8h2.7l.4-3.2h-3.1V8.8c0-.9.3-1.5 1.6-1.5h1.7V4.4a22 22 0 0 0-2.5-.1c-2.5 0-4.2 1.5-4.2 4.3v2.2H7.4V14h2.7v8z"/></svg>',
  );

/**
 * The Facebook provider. App id and secret come from the options or `AUTH_FACEBOOK_ID` and
 * `AUTH_FACEBOOK_SECRET`. The callback URL to register under Facebook Login's "Valid OAuth
 * Redirect URIs" is `<origin><basePath>/callback/facebook`.
 *
 * The login dialog is `https://www.facebook.com/<version>/dialog/oauth` with PKCE and state, the
 * code is exchanged at `https://graph.facebook.com/<version>/oauth/access_token` with the secret
 * in the request body, and the profile is `GET https://graph.facebook.com/<version>/me` with the
 * `fields` parameter. `image` is the picture's `data.url`, or null when it is Facebook's default
 * silhouette; `email` is null when Facebook sends none.
 *
 * @example
 * ```ts
 * import Facebook from "@gatehousejs/core/providers/facebook";
 *
 * const provider = Facebook({ fields: ["id", "name", "email", "picture.width(256)"] });
 * ```
 */
export default function Facebook(options: FacebookOptions = {}): OAuthConfig<FacebookProfile> {
  const {
    version = FACEBOOK_GRAPH_VERSION,
    fields = ["id", "name", "email", "picture"],
    scope = "public_profile,email",
    ...rest
  } = options;
  const requested = [...new Set(["id", ...fields])].join(",");
  return {
    id: "facebook",
    name: "Facebook",
    authorization: { url: `https://www.facebook.com/${version}/dialog/oauth`, params: { scope } },
    token: `https://graph.facebook.com/${version}/oauth/access_token`,
    userinfo: { url: `https://graph.facebook.com/${version}/me`, params: { fields: requested } },
    checks: ["pkce", "state"],
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile) {
      const picture = profile.picture?.data;
      return {
        id: profile.id,
        name: firstText(profile.name),
        email: firstText(profile.email),
        image: picture && picture.is_silhouette !== true ? firstText(picture.url) : null,
      };
    },
    style: { bg: "#0866ff", text: "#ffffff", brandColor: "#0866ff", logo },
    ...rest,
    type: "oauth",
  };
}
