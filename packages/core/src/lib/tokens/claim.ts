/**
 * The provider token set kept in a JWT session (JWT strategy without an adapter): the claim, its
 * shape and the `jwt`-callback helper that fills it. No OAuth code: importing it costs nothing.
 */
import type { Account } from "../types/models.js";

/** The JWT claim under which, without an adapter, the provider tokens live in the session. */
export const PROVIDER_TOKENS_CLAIM = "gatehouse_tokens";

/** The provider token set kept in a JWT session (JWT strategy without an adapter). */
export interface ProviderTokens {
  provider: string;
  access_token: string;
  refresh_token?: string;
  /** Seconds since the epoch. */
  expires_at?: number;
  token_type?: string;
  /** Set after the provider refused the refresh token; a new sign-in replaces the set. */
  error?: "RefreshTokenError";
}

/**
 * Keeps the sign-in's provider tokens in the JWT, for {@link getAccessToken} under the JWT
 * strategy without an adapter: call it from the `jwt` callback with the `account` it gets at
 * sign-in (it leaves the token alone on every other call). Only the access token, the refresh
 * token, the expiry and the token type are kept: the cookie stays small.
 *
 * @example
 * ```ts
 * import { storeProviderTokens } from "@gatehouse/core";
 * import type { AuthConfig } from "@gatehouse/core";
 *
 * const callbacks: AuthConfig["callbacks"] = {
 *   jwt: ({ token, account }) => storeProviderTokens(token, account),
 * };
 * ```
 */
export function storeProviderTokens<T extends Record<string, unknown>>(
  token: T,
  account: Account | null | undefined,
): T {
  if (!account || typeof account.access_token !== "string" || account.access_token === "") {
    return token;
  }
  const set: ProviderTokens = { provider: account.provider, access_token: account.access_token };
  if (typeof account.refresh_token === "string") set.refresh_token = account.refresh_token;
  if (typeof account.expires_at === "number") set.expires_at = account.expires_at;
  if (typeof account.token_type === "string") set.token_type = account.token_type;
  return { ...token, [PROVIDER_TOKENS_CLAIM]: set };
}
