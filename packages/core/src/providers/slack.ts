/**
 * Sign in with Slack (OpenID Connect).
 * @module
 */
import { customFetch } from "../lib/symbols.js";
import type { OAuthConfig } from "../lib/types/providers.js";

/**
 * The user's claims, in Slack's ID token and in the answer of `openid.connect.userInfo` (Slack's
 * "Sign in with Slack" and method reference). The `https://slack.com/...` claims describe the
 * workspace and the user's images in several sizes.
 */
export interface SlackProfile {
  /** The Slack user id. */
  sub: string;
  "https://slack.com/user_id"?: string;
  "https://slack.com/team_id"?: string;
  "https://slack.com/team_name"?: string;
  "https://slack.com/team_domain"?: string;
  "https://slack.com/enterprise_id"?: string;
  "https://slack.com/enterprise_name"?: string;
  "https://slack.com/enterprise_domain"?: string;
  email?: string;
  email_verified?: boolean;
  /** When the address was verified, in seconds since the epoch. */
  date_email_verified?: number;
  name?: string;
  given_name?: string;
  family_name?: string;
  locale?: string;
  picture?: string;
  "https://slack.com/user_image_24"?: string;
  "https://slack.com/user_image_32"?: string;
  "https://slack.com/user_image_48"?: string;
  "https://slack.com/user_image_72"?: string;
  "https://slack.com/user_image_192"?: string;
  "https://slack.com/user_image_512"?: string;
  "https://slack.com/user_image_1024"?: string;
  "https://slack.com/team_image_default"?: boolean;
  /** `openid.connect.userInfo` only: `false` with `error` when the call failed. */
  ok?: boolean;
  error?: string;
  [claim: string]: unknown;
}

/** Options of {@link Slack}. */
export interface SlackOptions extends Partial<Omit<OAuthConfig<SlackProfile>, "type">> {
  /** Scopes. Default `openid profile email`. */
  scope?: string;
}

export const SLACK_ISSUER = "https://slack.com";
export const SLACK_USERINFO_URL = "https://slack.com/api/openid.connect.userInfo";
export const DEFAULT_SLACK_SCOPE = "openid profile email";

const logo =
  "data:image/svg+xml;utf8," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><rect x="9" y="2" width="3.5" height="9" rx="1.75" fill="#36c5f0"/><rect x="13" y="9" width="9" height="3.5" rx="1.75" fill="#2eb67d"/><rect x="11.5" y="13" width="3.5" height="9" rx="1.75" fill="#ecb22e"/><rect x="2" y="11.5" width="9" height="3.5" rx="1.75" fill="#e01e5a"/></svg>',
  );

/** The user's picture among Slack's claims: `picture`, else the largest `user_image_*`. */
export function slackPicture(claims: Partial<SlackProfile> | undefined): string | null {
  if (!claims) return null;
  if (typeof claims.picture === "string" && claims.picture !== "") return claims.picture;
  for (const size of [1024, 512, 192, 72, 48, 32, 24]) {
    const url = claims[`https://slack.com/user_image_${size}`];
    if (typeof url === "string" && url !== "") return url;
  }
  return null;
}

/**
 * `openid.connect.userInfo` for the access token; undefined when the call fails (Slack answers
 * errors with HTTP 200 and `ok: false`) or names another user.
 */
async function userInfo(
  accessToken: unknown,
  sub: string,
  fetchImpl: typeof fetch,
): Promise<Partial<SlackProfile> | undefined> {
  if (typeof accessToken !== "string" || accessToken === "") return undefined;
  try {
    const response = await fetchImpl(SLACK_USERINFO_URL, {
      method: "POST",
      headers: { authorization: `Bearer ${accessToken}`, accept: "application/json" },
      redirect: "manual",
      signal: AbortSignal.timeout(5000),
    });
    if (!response.ok) return undefined;
    const body = (await response.json()) as Partial<SlackProfile> | null;
    return body?.ok === true && body.sub === sub ? body : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The Slack provider (OpenID Connect, issuer `https://slack.com`). Credentials from
 * `AUTH_SLACK_ID` and `AUTH_SLACK_SECRET`. Register the redirect URL
 * `<origin><basePath>/callback/slack` (https).
 *
 * The profile is the ID token's claims; when they carry no picture, the user's picture comes from
 * `openid.connect.userInfo` (a failure there leaves `image` null). The token request sends the
 * secret in its body (`client_secret_post`); the flow is checked by `state` and `nonce`.
 *
 * @example
 * ```ts
 * Slack({ clientId: process.env.SLACK_ID, clientSecret: process.env.SLACK_SECRET })
 * ```
 */
export default function Slack(options: SlackOptions = {}): OAuthConfig<SlackProfile> {
  const { scope = DEFAULT_SLACK_SCOPE, authorization, ...rest } = options;
  const params = typeof authorization === "object" ? authorization.params : undefined;
  const fetchImpl: typeof fetch = (input, init) => (options[customFetch] ?? fetch)(input, init);
  return {
    id: "slack",
    name: "Slack",
    issuer: SLACK_ISSUER,
    authorization: {
      ...(typeof authorization === "string" ? { url: authorization } : authorization),
      params: { scope, ...params },
    },
    client: { token_endpoint_auth_method: "client_secret_post" },
    checks: ["state", "nonce"],
    async profile(profile, tokens) {
      const image =
        slackPicture(profile) ??
        slackPicture(await userInfo(tokens.access_token, profile.sub, fetchImpl));
      const name =
        profile.name || [profile.given_name, profile.family_name].filter((p) => !!p).join(" ");
      return {
        id: profile.sub,
        name: name || null,
        email: profile.email || null,
        image,
      };
    },
    style: { bg: "#4a154b", text: "#ffffff", brandColor: "#4a154b", logo },
    ...rest,
    type: "oidc",
  };
}
