/**
 * TikTok sign-in (OAuth 2, Login Kit v2).
 * @module
 */
import { OAuthCallbackError } from "../lib/errors.js";
import { customFetch } from "../lib/symbols.js";
import type { EndpointConfig, OAuthConfig } from "../lib/types/providers.js";

/** A TikTok user, as `GET /v2/user/info/` returns the fields it was asked for. */
export interface TikTokUser {
  /** Unique id of the user in this application. */
  open_id: string;
  /** Id of the user across the developer's applications. */
  union_id?: string;
  username: string;
  display_name: string;
  avatar_url: string;
  avatar_url_100?: string;
  avatar_large_url?: string;
  bio_description?: string;
  /** Not supplied by TikTok at present. */
  email?: string;
  profile_deep_link?: string;
  follower_count?: number;
  following_count?: number;
  likes_count?: number;
  video_count?: number;
  is_verified?: boolean;
}

/** The error object of every TikTok API answer; `code` is `"ok"` on success. */
export interface TikTokError {
  code: string;
  log_id: string;
  message: string;
}

/** The body of TikTok's user-info answer. */
export interface TikTokProfile {
  data: { user: TikTokUser };
  error: TikTokError;
  [key: string]: unknown;
}

/** Options of {@link TikTok}. */
export interface TikTokOptions extends Partial<Omit<OAuthConfig<TikTokProfile>, "type">> {
  /** Scopes, comma-separated as TikTok expects. Default `user.info.profile`. */
  scope?: string;
  /** User-info fields to request. Default `open_id,avatar_url,display_name,username`. */
  fields?: string[];
}

/** A small inline note glyph: the button never loads an image from another host. */
const logo =
  "data:image/svg+xml;utf8," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#25F4EE" d="M14 3h3a5 5 0 0 0 4 4v3a8 8 0 0 1-4-1.3V15a6 6 0 1 1-6-6v3.2A2.8 2.8 0 1 0 14 15z"/></svg>',
  );

/** The scope asked for by default (SPEC). Add `user.info.basic` and others with the `scope` option. */
export const DEFAULT_TIKTOK_SCOPE = "user.info.profile";
/** The user-info fields asked for by default; `open_id` is always added. */
export const DEFAULT_TIKTOK_FIELDS = ["open_id", "avatar_url", "display_name", "username"];

/**
 * TikTok's token endpoint wants a form-encoded body with the client id as `client_key`. The
 * body is built by `oauth4webapi` with `client_secret_post`, so it carries `client_id`: copy it.
 */
async function tiktokFetch(
  input: string | URL | Request,
  init: RequestInit | undefined,
  next: typeof fetch,
): Promise<Response> {
  const url = new URL(input instanceof Request ? input.url : input);
  if (!url.pathname.endsWith("/token/") || !(init?.body instanceof URLSearchParams)) {
    return next(input, init);
  }
  const body = new URLSearchParams(init.body);
  const clientId = body.get("client_id");
  if (clientId !== null && !body.has("client_key")) body.set("client_key", clientId);
  const headers = new Headers(init.headers);
  headers.set("content-type", "application/x-www-form-urlencoded");
  return next(input, { ...init, headers, body });
}

/** An endpoint override merged over a default: a new URL keeps the default parameters. */
function merge(
  base: { url: string; params: Record<string, unknown> },
  override: EndpointConfig | undefined,
): { url: string; params: Record<string, unknown> } {
  if (override === undefined) return base;
  if (typeof override === "string") return { ...base, url: override };
  return { url: override.url ?? base.url, params: { ...base.params, ...override.params } };
}

/**
 * The TikTok provider. Client key and secret come from the options or from `AUTH_TIKTOK_ID`
 * (the app's "Client Key") and `AUTH_TIKTOK_SECRET`, read when the configuration is first used.
 * The callback URL to register at TikTok is `<origin><basePath>/callback/tiktok`.
 *
 * The user's `email` is TikTok's email field, else the username, else null. The username is not an
 * address: it never finds, links or is stored as a user's address (see `emailIsAddress`).
 *
 * @example
 * ```ts
 * TikTok({ scope: "user.info.basic,user.info.profile", fields: ["open_id", "avatar_url", "display_name", "username", "bio_description"] })
 * ```
 */
export default function TikTok(options: TikTokOptions = {}): OAuthConfig<TikTokProfile> {
  const {
    scope = DEFAULT_TIKTOK_SCOPE,
    fields = DEFAULT_TIKTOK_FIELDS,
    authorization,
    userinfo,
    [customFetch]: userFetch,
    ...rest
  } = options;
  const requested = [...new Set(["open_id", ...fields])].join(",");
  return {
    id: "tiktok",
    name: "TikTok",
    authorization: merge(
      {
        url: "https://www.tiktok.com/v2/auth/authorize/",
        params: {
          // A function: the client id is known only once the configuration (and env) is read.
          client_key: (provider: { clientId: string }) => provider.clientId,
          scope,
        },
      },
      authorization,
    ),
    token: "https://open.tiktokapis.com/v2/oauth/token/",
    userinfo: merge(
      { url: "https://open.tiktokapis.com/v2/user/info/", params: { fields: requested } },
      userinfo,
    ),
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile) {
      const error = profile.error;
      if (error && error.code !== "ok") {
        throw new OAuthCallbackError(
          `TikTok refused the profile request: code=${error.code} log_id=${error.log_id}`,
        );
      }
      const user = profile.data?.user;
      return {
        id: user.open_id,
        name: user.display_name,
        image: user.avatar_url,
        email: user.email || user.username || null,
      };
    },
    // The username fallback is shown as `email` (SPEC) but is no address: usernames are
    // recycled, so it must never find, link or be stored as a user's address. Only TikTok's
    // own email field counts.
    emailIsAddress(profile, user) {
      const email = profile.data?.user?.email;
      return typeof email === "string" && email !== "" && email.toLowerCase() === user.email;
    },
    style: { bg: "#000000", text: "#ffffff", brandColor: "#000000", logo },
    [customFetch]: (input, init) => tiktokFetch(input, init, userFetch ?? fetch),
    ...rest,
    type: "oauth",
  };
}
