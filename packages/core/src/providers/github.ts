/**
 * GitHub sign-in (OAuth 2: github.com or GitHub Enterprise Server).
 * @module
 */
import { OAuthCallbackError } from "../lib/errors.js";
import { customFetch } from "../lib/symbols.js";
import type { OAuthConfig } from "../lib/types/providers.js";

/** A GitHub user, as `GET /user` ("Get the authenticated user") returns it. */
export interface GitHubProfile {
  /** The user's numeric id: stable, unlike the login. */
  id: number;
  login: string;
  node_id: string;
  avatar_url: string;
  gravatar_id: string | null;
  url: string;
  html_url: string;
  followers_url?: string;
  following_url?: string;
  gists_url?: string;
  starred_url?: string;
  subscriptions_url?: string;
  organizations_url?: string;
  repos_url?: string;
  events_url?: string;
  received_events_url?: string;
  /** `"User"` for a person. */
  type: string;
  site_admin: boolean;
  user_view_type?: string;
  name: string | null;
  company: string | null;
  blog: string | null;
  location: string | null;
  /**
   * The public email, `null` when the user keeps it private. Gatehouse then fills it with the
   * primary, verified address from `GET /user/emails` (needs the `user:email` scope).
   */
  email: string | null;
  notification_email?: string | null;
  hireable: boolean | null;
  bio: string | null;
  twitter_username?: string | null;
  public_repos: number;
  public_gists: number;
  followers: number;
  following: number;
  created_at: string;
  updated_at: string;
  /** Present for the authenticated user's own private view. */
  private_gists?: number;
  total_private_repos?: number;
  owned_private_repos?: number;
  disk_usage?: number;
  collaborators?: number;
  two_factor_authentication?: boolean;
  plan?: { name: string; space: number; private_repos: number; collaborators: number };
  /** GitHub Enterprise Server with LDAP. */
  ldap_dn?: string;
  [key: string]: unknown;
}

/** One entry of `GET /user/emails`. */
export interface GitHubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
  /** `"public"`, `"private"`, or `null`. */
  visibility: string | null;
}

/** Options of {@link GitHub}. */
export interface GitHubOptions extends Partial<Omit<OAuthConfig<GitHubProfile>, "type">> {
  /** GitHub Enterprise Server: the instance's URL, e.g. `https://github.example.com`. */
  enterprise?: { baseUrl: string };
  /** Space-separated scopes. Default `read:user user:email`. */
  scope?: string;
}

/** The scopes asked for by default: the profile, and the addresses (for a private email). */
export const DEFAULT_GITHUB_SCOPE = "read:user user:email";

/** The REST API version Gatehouse was written against (sent as `X-GitHub-Api-Version`). */
const API_VERSION = "2022-11-28";

const logo =
  "data:image/svg+xml;utf8," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><circle cx="12" cy="12" r="10" fill="#ffffff"/><path fill="#24292f" d="M8 6.5 10 9h4l2-2.5.6 3.4A5 5 0 0 1 17 12c0 2.6-1.8 4.2-4 4.6V20h-2v-3.4c-2.2-.4-4-2-4-4.6 0-.8.2-1.5.4-2.1z"/></svg>',
  );

/** The web origin and the REST API base of github.com or an Enterprise Server instance. */
export function githubUrls(enterprise?: { baseUrl: string }): { web: string; api: string } {
  if (!enterprise) return { web: "https://github.com", api: "https://api.github.com" };
  const web = new URL(enterprise.baseUrl).origin;
  return { web, api: `${web}/api/v3` };
}

/**
 * The address to use from `GET /user/emails`: the primary one, and only if GitHub verified it.
 * A `null` answer means the token may not read addresses (no `user:email` scope, or a GitHub App
 * without the email permission): the sign-in goes on without an address.
 */
export function primaryVerifiedEmail(emails: GitHubEmail[] | null): string | null {
  const primary = emails?.find((entry) => entry.primary);
  return primary?.verified && typeof primary.email === "string" ? primary.email : null;
}

/** GitHub refuses API calls without a User-Agent; the version header pins the answers' shape. */
function withApiHeaders(init: RequestInit | undefined): RequestInit {
  const headers = new Headers(init?.headers);
  if (!headers.has("user-agent")) headers.set("user-agent", "gatehouse");
  headers.set("x-github-api-version", API_VERSION);
  headers.set("accept", "application/vnd.github+json");
  return { ...init, headers };
}

/**
 * GitHub's token endpoint reports a bad code or bad credentials with HTTP 200 and an `error`
 * field; give such an answer an error status so it fails as the OAuth error it is.
 */
async function tokenAnswer(response: Response): Promise<Response> {
  if (response.status !== 200) return response;
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const failed =
    typeof body === "object" &&
    body !== null &&
    typeof (body as { error?: unknown }).error === "string";
  return new Response(text, { status: failed ? 400 : 200, headers: response.headers });
}

/** `GET /user`, with the primary verified address filled in when the public one is private. */
async function userAnswer(
  response: Response,
  request: { url: string; init: RequestInit },
  next: typeof fetch,
): Promise<Response> {
  if (!response.ok) return response;
  const text = await response.text();
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  const answer = (body: string) => new Response(body, { status: response.status, headers });
  let profile: GitHubProfile;
  try {
    profile = JSON.parse(text) as GitHubProfile;
  } catch {
    return answer(text);
  }
  if (typeof profile !== "object" || profile === null || profile.email) return answer(text);
  const emails = await next(request.url.replace(/\/user$/, "/user/emails"), request.init);
  let list: GitHubEmail[] | null = null;
  if (emails.ok) {
    const body: unknown = await emails.json().catch(() => null);
    list = Array.isArray(body) ? (body as GitHubEmail[]) : null;
  } else if (emails.status !== 401 && emails.status !== 403 && emails.status !== 404) {
    throw new OAuthCallbackError(`GitHub's /user/emails answered HTTP ${emails.status}`);
  }
  return answer(JSON.stringify({ ...profile, email: primaryVerifiedEmail(list) }));
}

function githubFetch(urls: { web: string; api: string }, next: typeof fetch): typeof fetch {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url.startsWith(`${urls.web}/login/oauth/access_token`)) {
      return tokenAnswer(await next(input, init));
    }
    if (url === `${urls.api}/user`) {
      const apiInit = withApiHeaders(init);
      return userAnswer(await next(url, apiInit), { url, init: apiInit }, next);
    }
    if (url.startsWith(`${urls.api}/`)) return next(input, withApiHeaders(init));
    return next(input, init);
  };
}

/**
 * The GitHub provider, for OAuth apps and GitHub Apps. Client id and secret come from the options
 * or from `AUTH_GITHUB_ID` and `AUTH_GITHUB_SECRET`. The callback URL to register is
 * `<origin><basePath>/callback/github`.
 *
 * Sign-in uses PKCE (S256) and state, the scopes `read:user user:email`, and sends the client
 * secret in the token request's body, as GitHub documents. A user whose email is private gets
 * the primary address from `GET /user/emails`, only if GitHub verified it. GitHub Enterprise
 * Server: `enterprise: { baseUrl: "https://github.example.com" }` (API at `<baseUrl>/api/v3`).
 *
 * @example
 * ```ts
 * import GitHub from "@gatehousejs/core/providers/github";
 *
 * const dotCom = GitHub();
 * const server = GitHub({ enterprise: { baseUrl: "https://github.example.com" } });
 * ```
 */
export default function GitHub(options: GitHubOptions = {}): OAuthConfig<GitHubProfile> {
  const { enterprise, scope = DEFAULT_GITHUB_SCOPE, [customFetch]: userFetch, ...rest } = options;
  const urls = githubUrls(enterprise);
  return {
    id: "github",
    name: "GitHub",
    authorization: { url: `${urls.web}/login/oauth/authorize`, params: { scope } },
    token: `${urls.web}/login/oauth/access_token`,
    userinfo: `${urls.api}/user`,
    checks: ["pkce", "state"],
    client: { token_endpoint_auth_method: "client_secret_post" },
    profile(profile) {
      return {
        id: String(profile.id),
        name: profile.name || profile.login,
        email: profile.email || null,
        image: profile.avatar_url || null,
      };
    },
    style: { bg: "#24292f", text: "#ffffff", brandColor: "#24292f", logo },
    [customFetch]: githubFetch(urls, userFetch ?? ((input, init) => fetch(input, init))),
    ...rest,
    type: "oauth",
  };
}
