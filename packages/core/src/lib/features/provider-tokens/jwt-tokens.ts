/**
 * `getAccessToken` under the JWT strategy: the provider tokens of a session without an adapter
 * live in the session JWT (`gatehouse_tokens`); a refresh re-issues the cookie, and a refused
 * refresh token marks the session so that the callbacks and the client see it.
 */
import type * as oauth from "oauth4webapi";
import type { Context } from "../../context.js";
import { serializeCookie } from "../../cookies.js";
import { AuthError, RefreshTokenError } from "../../errors.js";
import type { OAuthProvider } from "../../oauth/provider.js";
import { writeToken } from "../../session/jwt.js";
import type { AdapterAccount, JWT } from "../../types/models.js";
import { PROVIDER_TOKENS_CLAIM, type ProviderTokens, providerTokensOf } from "./claim.js";
import {
  type AccessToken,
  fresh,
  grant,
  now,
  REFRESH_ERROR,
  refreshFailure,
  result,
} from "./grant.js";

/** Where the re-issued session cookie goes (`GetAccessTokenOptions.onCookies`). */
type OnCookies = ((setCookies: string[]) => void) | undefined;

/**
 * JWT strategy: re-issues the request's session cookie with `error: "RefreshTokenError"` (and
 * `patch`), handing the `Set-Cookie` values to `onCookies`, so the `jwt` and `session` callbacks
 * and the client's session see that a new sign-in is needed.
 */
export async function markJwt(ctx: Context, token: JWT, patch: JWT, onCookies: OnCookies) {
  if (token.error === REFRESH_ERROR && Object.keys(patch).length === 0) return;
  await reissueJwt(ctx, { ...token, ...patch, error: REFRESH_ERROR }, onCookies);
}

/** Writes `token` as the request's session cookie and hands the cookies to `onCookies`. */
async function reissueJwt(ctx: Context, token: JWT, onCookies: OnCookies) {
  const { cookies } = await writeToken(ctx, token);
  onCookies?.(cookies.map(serializeCookie));
}

function readProviderTokens(token: JWT): ProviderTokens | null {
  const set = token[PROVIDER_TOKENS_CLAIM] as Partial<ProviderTokens> | undefined;
  if (!set || typeof set !== "object") return null;
  if (typeof set.provider !== "string" || typeof set.access_token !== "string") return null;
  return set as ProviderTokens;
}

/** Refreshes in this process, per refresh token, under the JWT strategy. */
const pendingJwt = new Map<string, Promise<ProviderTokens>>();

/**
 * The access token in the session JWT `token` (already decoded and checked by the session code),
 * refreshed when it expires within `skew` seconds; `null` when the session holds no token set of
 * this provider.
 */
export async function fromJwt(
  ctx: Context,
  token: JWT,
  provider: OAuthProvider,
  skew: number,
  onCookies: OnCookies,
): Promise<AccessToken | null> {
  const set = readProviderTokens(token);
  if (!set || set.provider !== provider.id) return null;
  const asAccount = (s: ProviderTokens) => s as unknown as AdapterAccount;
  if (set.error === REFRESH_ERROR) {
    await markJwt(ctx, token, {}, onCookies);
    throw new RefreshTokenError(`The "${provider.id}" account needs a new sign-in`);
  }
  if (fresh(asAccount(set), skew)) return result(asAccount(set));
  const old = set.refresh_token;
  if (typeof old !== "string" || old === "") {
    await markJwt(ctx, token, {}, onCookies);
    throw new RefreshTokenError(
      `The "${provider.id}" access token expired and there is no refresh token`,
    );
  }
  let refresh = pendingJwt.get(old);
  if (!refresh) {
    refresh = refreshSet(provider, set, old);
    pendingJwt.set(old, refresh);
    // A success is kept a little: a concurrent request that still carries the old cookie gets
    // the same new set instead of spending the rotated-away refresh token. A failure is not.
    const clear = () => {
      if (pendingJwt.get(old) === refresh) pendingJwt.delete(old);
    };
    refresh.then(() => setTimeout(clear, 30_000).unref?.(), clear);
  }
  let next: ProviderTokens;
  try {
    next = await refresh;
  } catch (error) {
    if (error instanceof RefreshTokenError) {
      await markJwt(
        ctx,
        token,
        { [PROVIDER_TOKENS_CLAIM]: { ...set, error: REFRESH_ERROR } },
        onCookies,
      );
    }
    throw error;
  }
  await reissueJwt(ctx, { ...token, [PROVIDER_TOKENS_CLAIM]: next }, onCookies);
  return result(asAccount(next));
}

async function refreshSet(
  provider: OAuthProvider,
  set: ProviderTokens,
  old: string,
): Promise<ProviderTokens> {
  let tokens: oauth.TokenEndpointResponse;
  try {
    tokens = await grant(provider, old);
  } catch (cause) {
    throw refreshFailure(provider, cause);
  }
  const next = providerTokensOf({
    provider: set.provider,
    type: "oauth",
    providerAccountId: "",
    access_token: tokens.access_token,
    refresh_token: tokens.refresh_token ?? old,
    token_type: tokens.token_type.toLowerCase() as Lowercase<string>,
    id_token: tokens.id_token ?? set.id_token,
    ...(typeof tokens.expires_in === "number" ? { expires_at: now() + tokens.expires_in } : {}),
  });
  if (!next) {
    throw new AuthError(
      `The refreshed "${provider.id}" tokens are too large for the session cookie`,
    );
  }
  return next;
}
