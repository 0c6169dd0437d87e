/**
 * Twitch sign-in (OpenID Connect, discovery at https://id.twitch.tv/oauth2, with the `claims`
 * parameter asking for the profile).
 * @module
 */
import { customFetch } from "../lib/symbols.js";
import type { OAuthConfig } from "../lib/types/providers.js";
import { firstText } from "./_shared/claims.js";

/**
 * The claims of a Twitch ID token. `preferred_username` is always present; `email`,
 * `email_verified`, `picture` and `updated_at` only when requested through the `claims`
 * parameter (`email` and `email_verified` also need the `user:read:email` scope).
 */
export interface TwitchProfile {
  /** The Twitch user id. */
  sub: string;
  iss: string;
  aud: string;
  azp?: string;
  exp: number;
  iat: number;
  nonce?: string;
  /** The user's display name. */
  preferred_username: string;
  email?: string;
  email_verified?: boolean;
  /** The profile image URL. */
  picture?: string;
  updated_at?: string;
  [claim: string]: unknown;
}

/** Options of {@link Twitch}. */
export interface TwitchOptions extends Partial<Omit<OAuthConfig<TwitchProfile>, "type">> {
  /** Scopes, space-separated. Default `openid user:read:email`. */
  scope?: string;
}

/** The issuer Twitch's discovery document and ID tokens name. */
export const TWITCH_ISSUER = "https://id.twitch.tv/oauth2";

/** The claims asked for in both the ID token and the userinfo answer. */
const wanted = { email: null, email_verified: null, picture: null, preferred_username: null };

const logo =
  "data:image/svg+xml;utf8," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#ffffff" d="M5 2 3 6v14h5v3h3l3-3h4l4-4V2zm15 13-3 3h-5l-3 3v-3H5V4h15zM16 7h2v6h-2zm-5 0h2v6h-2z"/></svg>',
  );

/**
 * Twitch's token endpoint answers `scope` as an array, where OAuth 2 (and `oauth4webapi`) want
 * a space-separated string: rewrite that one field of a successful token answer.
 */
async function twitchFetch(
  input: string | URL | Request,
  init: RequestInit | undefined,
  next: typeof fetch,
): Promise<Response> {
  const response = await next(input, init);
  const url = new URL(input instanceof Request ? input.url : input);
  if (!url.pathname.endsWith("/oauth2/token") || !response.ok) return response;
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return new Response(text, { status: response.status, headers: response.headers });
  }
  if (
    typeof body === "object" &&
    body !== null &&
    Array.isArray((body as { scope?: unknown }).scope)
  ) {
    const scope = (body as { scope: unknown[] }).scope.filter((s) => typeof s === "string");
    body = { ...body, scope: scope.join(" ") };
  }
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(JSON.stringify(body), { status: response.status, headers });
}

/**
 * The Twitch provider. Client id and secret come from the options or `AUTH_TWITCH_ID` and
 * `AUTH_TWITCH_SECRET`. The callback URL to register as an "OAuth Redirect URL" of the
 * application is `<origin><basePath>/callback/twitch`.
 *
 * Twitch publishes OpenID discovery at `https://id.twitch.tv/oauth2/.well-known/openid-configuration`;
 * its `claims` parameter asks for `email`, `email_verified`, `picture` and `preferred_username`
 * in the ID token and the userinfo answer, which Twitch otherwise leaves out. The scope is
 * `openid user:read:email`, the client secret goes in the token request's body
 * (`client_secret_post`, as Twitch requires), and state and nonce protect the flow: Twitch does
 * not document PKCE. An address Twitch marks `email_verified: false` never finds, links or is
 * stored as a user's address.
 *
 * @example
 * ```ts
 * import Twitch from "@gatehousejs/core/providers/twitch";
 *
 * const provider = Twitch({ scope: "openid user:read:email user:read:follows" });
 * ```
 */
export default function Twitch(options: TwitchOptions = {}): OAuthConfig<TwitchProfile> {
  const { scope = "openid user:read:email", [customFetch]: userFetch, ...rest } = options;
  return {
    id: "twitch",
    name: "Twitch",
    issuer: TWITCH_ISSUER,
    authorization: { params: { scope, claims: { id_token: wanted, userinfo: wanted } } },
    checks: ["state", "nonce"],
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile) {
      return {
        id: profile.sub,
        name: firstText(profile.preferred_username),
        email: firstText(profile.email),
        image: firstText(profile.picture),
      };
    },
    style: { bg: "#9146ff", text: "#ffffff", brandColor: "#9146ff", logo },
    [customFetch]: (input, init) => twitchFetch(input, init, userFetch ?? fetch),
    ...rest,
    type: "oidc",
  };
}
