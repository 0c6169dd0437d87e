/**
 * X (formerly Twitter): OAuth 2.0 Authorization Code with PKCE, profile from the X API v2.
 * @module
 */
import { OAuthCallbackError } from "../lib/errors.js";
import type { EndpointConfig, OAuthConfig } from "../lib/types/providers.js";

/** A user object of the X API v2, with the fields asked for in `user.fields`. */
export interface TwitterUser {
  id: string;
  /** Display name. */
  name: string;
  /** The handle, without `@`. */
  username: string;
  /** The avatar (48×48 `_normal` variant); absent unless asked for. */
  profile_image_url?: string;
  /** The account's confirmed address: needs the `users.email` scope and the field. */
  confirmed_email?: string;
  created_at?: string;
  description?: string;
  location?: string;
  protected?: boolean;
  url?: string;
  verified?: boolean;
  verified_type?: string;
  public_metrics?: {
    followers_count?: number;
    following_count?: number;
    tweet_count?: number;
    listed_count?: number;
  };
  [field: string]: unknown;
}

/** One entry of an X API v2 `errors` array. */
export interface TwitterApiError {
  title?: string;
  detail?: string;
  type?: string;
  [field: string]: unknown;
}

/** The body of `GET /2/users/me`. */
export interface TwitterProfile {
  data: TwitterUser;
  errors?: TwitterApiError[];
  [key: string]: unknown;
}

/** Options of {@link Twitter}. */
export interface TwitterOptions extends Partial<Omit<OAuthConfig<TwitterProfile>, "type">> {
  /**
   * Scopes, space-separated. Default `users.read tweet.read offline.access`. Add `users.email`
   * (the app must have email access) to get the user's confirmed address.
   */
  scope?: string;
  /** Extra `user.fields` for `/2/users/me`; `profile_image_url` is always asked for. */
  fields?: string[];
}

export const DEFAULT_TWITTER_SCOPE = "users.read tweet.read offline.access";
export const TWITTER_AUTHORIZATION_URL = "https://x.com/i/oauth2/authorize";
export const TWITTER_TOKEN_URL = "https://api.x.com/2/oauth2/token";
export const TWITTER_USERINFO_URL = "https://api.x.com/2/users/me";

const logo =
  "data:image/svg+xml;utf8," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#fff" d="M3 3h5l4.2 5.8L17.4 3H20l-6.6 7.6L21 21h-5l-4.6-6.3L5.8 21H3.2l7-8z"/></svg>',
  );

/** The `user.fields` for a scope: the confirmed address only when `users.email` is granted. */
export function twitterUserFields(scope: string, fields: string[] = []): string {
  const wanted = ["profile_image_url", ...fields];
  if (scope.split(/\s+/).includes("users.email")) wanted.push("confirmed_email");
  return [...new Set(wanted)].join(",");
}

function endpoint(
  base: { url: string; params: Record<string, unknown> },
  override: EndpointConfig | undefined,
) {
  if (override === undefined) return base;
  if (typeof override === "string") return { ...base, url: override };
  return { url: override.url ?? base.url, params: { ...base.params, ...override.params } };
}

/**
 * The X (Twitter) provider, OAuth 2.0 with PKCE and `client_secret_basic` (a confidential client).
 * Credentials from `AUTH_TWITTER_ID` and `AUTH_TWITTER_SECRET` (the app's OAuth 2.0 Client ID and
 * Client Secret, not the API key). Register the callback `<origin><basePath>/callback/twitter`.
 *
 * The profile is `GET https://api.x.com/2/users/me`. The email is the account's `confirmed_email`,
 * asked for only when the scope has `users.email` (else X refuses the whole request): without
 * it, `email` is null.
 *
 * @example
 * ```ts
 * Twitter({ scope: "users.read tweet.read users.email" })
 * ```
 */
export default function Twitter(options: TwitterOptions = {}): OAuthConfig<TwitterProfile> {
  const { scope = DEFAULT_TWITTER_SCOPE, fields, authorization, userinfo, ...rest } = options;
  return {
    id: "twitter",
    name: "Twitter",
    authorization: endpoint({ url: TWITTER_AUTHORIZATION_URL, params: { scope } }, authorization),
    token: TWITTER_TOKEN_URL,
    userinfo: endpoint(
      { url: TWITTER_USERINFO_URL, params: { "user.fields": twitterUserFields(scope, fields) } },
      userinfo,
    ),
    client: { token_endpoint_auth_method: "client_secret_basic" },
    checks: ["pkce", "state"],
    profile(profile) {
      const user = profile.data;
      if (typeof user?.id !== "string" || user.id === "") {
        const error = profile.errors?.[0];
        throw new OAuthCallbackError(
          `X answered no user${error?.title ? ` (${String(error.title).slice(0, 64)})` : ""}`,
        );
      }
      return {
        id: user.id,
        name: user.name || user.username || null,
        email: user.confirmed_email || null,
        image: user.profile_image_url || null,
      };
    },
    style: { bg: "#000000", text: "#ffffff", brandColor: "#000000", logo },
    ...rest,
    type: "oauth",
  };
}
