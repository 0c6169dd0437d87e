/**
 * The provider token set kept in a JWT session (JWT strategy without an adapter): the claim, its
 * shape and the `jwt`-callback helper that fills it. No OAuth code: importing it costs nothing.
 */
import type { Account } from "../../types/models.js";

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
  /**
   * The sign-in's ID token, for the `id_token_hint` of a federated sign-out; kept only while the
   * set stays within {@link PROVIDER_TOKENS_BUDGET}.
   */
  id_token?: string;
  /** Set after the provider refused the refresh token; a new sign-in replaces the set. */
  error?: "RefreshTokenError";
}

/**
 * The most characters of JSON the token set may add to the session JWT. One cookie chunk holds
 * about 3,900 characters of encrypted token, and the user's own claims need room too: a set
 * over the budget drops its ID token first, and is not kept at all if it is still too large
 * (use an adapter for providers with very large tokens).
 */
export const PROVIDER_TOKENS_BUDGET = 2_400;

/**
 * The provider token set of a sign-in's `account`, within {@link PROVIDER_TOKENS_BUDGET}; `null`
 * when the account has no access token or the set does not fit.
 */
export function providerTokensOf(account: Account | null | undefined): ProviderTokens | null {
  if (!account || typeof account.access_token !== "string" || account.access_token === "") {
    return null;
  }
  const set: ProviderTokens = { provider: account.provider, access_token: account.access_token };
  if (typeof account.refresh_token === "string") set.refresh_token = account.refresh_token;
  if (typeof account.expires_at === "number") set.expires_at = account.expires_at;
  if (typeof account.token_type === "string") set.token_type = account.token_type.toLowerCase();
  if (typeof account.id_token === "string") set.id_token = account.id_token;
  if (JSON.stringify(set).length <= PROVIDER_TOKENS_BUDGET) return set;
  delete set.id_token;
  return JSON.stringify(set).length <= PROVIDER_TOKENS_BUDGET ? set : null;
}

/**
 * Keeps the sign-in's provider tokens in the JWT under the JWT strategy without an adapter.
 * Gatehouse already puts them in the token it hands the `jwt` callback at an OAuth sign-in; call
 * this from a `jwt` callback that builds a new token instead of returning the one it got (it
 * leaves the token alone on every call without an `account`). The set holds the access token,
 * the refresh token, the expiry, the token type and, within the cookie budget, the ID token.
 *
 * @example
 * ```ts
 * import { storeProviderTokens } from "@gatehousejs/core";
 * import type { AuthConfig } from "@gatehousejs/core";
 *
 * const callbacks: AuthConfig["callbacks"] = {
 *   jwt: ({ token, account }) => storeProviderTokens({ sub: token.sub, role: "reader" }, account),
 * };
 * ```
 */
export function storeProviderTokens<T extends Record<string, unknown>>(
  token: T,
  account: Account | null | undefined,
): T {
  const set = providerTokensOf(account);
  return set ? { ...token, [PROVIDER_TOKENS_CLAIM]: set } : token;
}
