/**
 * What every refresh path of `getAccessToken` shares: the `refresh_token` grant (retried once on
 * a network failure or a 5xx), the error a failed grant becomes, and when a token is fresh.
 */
import * as oauth from "oauth4webapi";
import { AuthError, RefreshTokenError } from "../../errors.js";
import type { OAuthProvider } from "../../oauth/provider.js";
import { authorizationServer, client, httpOptions } from "../../oauth/server.js";
import type { AdapterAccount } from "../../types/models.js";

/** What `getAccessToken` returns. */
export interface AccessToken {
  accessToken: string;
  /** Seconds since the epoch; `null` when the provider gave no lifetime. */
  expiresAt: number | null;
  /** Lowercase, `"bearer"` unless the provider said otherwise. */
  tokenType: string;
}

/** How long one refresh grant request may take. */
const GRANT_TIMEOUT_MS = 5_000;
/** The mark a refused refresh token leaves on an account, a session or a token set. */
export const REFRESH_ERROR = "RefreshTokenError";

/** Seconds since the epoch. */
export const now = () => Math.floor(Date.now() / 1000);

/** Whether the access token outlives `skew` seconds from now (no expiry: it does). */
export function fresh(account: AdapterAccount, skew: number): boolean {
  if (typeof account.access_token !== "string" || account.access_token === "") return false;
  return typeof account.expires_at !== "number" || account.expires_at - skew > now();
}

export function result(account: AdapterAccount): AccessToken {
  return {
    accessToken: account.access_token as string,
    expiresAt: typeof account.expires_at === "number" ? account.expires_at : null,
    tokenType: (account.token_type ?? "bearer").toLowerCase(),
  };
}

/** The refresh_token grant; a network failure or a 5xx answer is tried once more. */
export async function grant(provider: OAuthProvider, refreshToken: string) {
  const as = await authorizationServer(provider);
  const { client: c, auth } = client(provider);
  const options = httpOptions(provider, as.token_endpoint);
  for (let attempt = 1; ; attempt++) {
    let response: Response;
    try {
      // Well within the lock's lifetime, so that no other process takes over a refresh that is
      // still under way.
      const signal = AbortSignal.timeout(GRANT_TIMEOUT_MS);
      response = await oauth.refreshTokenGrantRequest(as, c, auth, refreshToken, {
        ...options,
        signal,
      });
    } catch (error) {
      if (attempt < 2 && error instanceof TypeError) continue;
      throw error;
    }
    if (response.status >= 500 && attempt < 2) {
      await response.body?.cancel();
      continue;
    }
    return oauth.processRefreshTokenResponse(as, c, response);
  }
}

/** The error a failed refresh grant becomes: `invalid_grant` needs a new sign-in. */
export function refreshFailure(provider: OAuthProvider, cause: unknown): AuthError {
  if (cause instanceof oauth.ResponseBodyError && cause.error === "invalid_grant") {
    return new RefreshTokenError(`The "${provider.id}" provider refused the refresh token`, {
      cause,
    });
  }
  if (cause instanceof AuthError) return cause;
  const detail = cause instanceof oauth.ResponseBodyError ? ` (error=${cause.error})` : "";
  return new AuthError(`Refreshing the "${provider.id}" access token failed${detail}`, { cause });
}
