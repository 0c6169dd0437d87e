/**
 * `getAccessToken()`: the provider access token of a signed-in user, refreshed with the stored
 * refresh token when it is about to expire. One refresh per account at a time: in this process
 * through a map of pending refreshes, across processes through the adapter's `lockAccount`; the
 * new token set is written with a compare-and-swap on the old refresh token (`updateAccount`), so
 * a rotated refresh token is stored once and an older set never overwrites a newer one.
 */
import * as oauth from "oauth4webapi";
import { configLogger, resolveConfig } from "../config.js";
import { Context } from "../context.js";
import { parseCookies, readChunked, serializeCookie, writeChunked } from "../cookies.js";
import {
  AdapterError,
  AuthError,
  InvalidProvider,
  JWTSessionError,
  MissingAdapter,
  MissingAdapterMethods,
  RefreshTokenError,
} from "../errors.js";
import type { OAuthProvider } from "../oauth/provider.js";
import { authorizationServer, client, httpOptions } from "../oauth/server.js";
import { effectiveUrl, HostMismatch } from "../origin.js";
import type { RequestInternal } from "../request.js";
import { identifySession } from "../session/index.js";
import { isRevoked } from "../session/revocation.js";
import type { AuthConfig } from "../types/config.js";
import type { Adapter, AdapterAccount, JWT } from "../types/models.js";
import { PROVIDER_TOKENS_CLAIM, type ProviderTokens, providerTokensOf } from "./claim.js";

/** Options of {@link getAccessToken}. */
export interface GetAccessTokenOptions {
  /** Refresh when the token expires within this many seconds (default 60). */
  skew?: number;
  /**
   * JWT strategy: receives the `Set-Cookie` header values of the re-issued session cookie, after
   * a refresh without an adapter (forward them on the response, or the next request refreshes
   * again with a spent refresh token), and after a refused refresh token marked the session
   * `error: "RefreshTokenError"`.
   */
  onCookies?: (setCookies: string[]) => void;
}

/** What {@link getAccessToken} returns. */
export interface AccessToken {
  accessToken: string;
  /** Seconds since the epoch; `null` when the provider gave no lifetime. */
  expiresAt: number | null;
  /** Lowercase, `"bearer"` unless the provider said otherwise. */
  tokenType: string;
}

/** How long one process holds the cross-process refresh lock, at most. */
const LOCK_TTL_MS = 15_000;
/** How long one refresh grant request may take. */
const GRANT_TIMEOUT_MS = 5_000;
/** How often a process that waits for another's refresh reads the stored account. */
const POLL_MS = 50;

type AccountKey = Pick<AdapterAccount, "provider" | "providerAccountId">;
const keyOf = (a: AccountKey) => JSON.stringify([a.provider, a.providerAccountId]);

/** Refreshes under way in this process, per adapter (store) and account. */
const pendingByAdapter = new WeakMap<Adapter, Map<string, Promise<AccessToken>>>();

const now = () => Math.floor(Date.now() / 1000);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function fresh(account: AdapterAccount, skew: number): boolean {
  if (typeof account.access_token !== "string" || account.access_token === "") return false;
  return typeof account.expires_at !== "number" || account.expires_at - skew > now();
}

function result(account: AdapterAccount): AccessToken {
  return {
    accessToken: account.access_token as string,
    expiresAt: typeof account.expires_at === "number" ? account.expires_at : null,
    tokenType: (account.token_type ?? "bearer").toLowerCase(),
  };
}

const REFRESH_ERROR = "RefreshTokenError";

function marked(account: AdapterAccount): boolean {
  return account.error === REFRESH_ERROR;
}

/**
 * Database strategy: the user's sessions carry the mark (`error: "RefreshTokenError"`), so the
 * `session` callback and the client's session see that a new sign-in is needed. A failure to
 * mark is logged: the thrown `RefreshTokenError` is what the caller needs first.
 */
async function markSessions(resolved: Resolved, adapter: Adapter, userId: string) {
  if (resolved.session.strategy !== "database") return;
  if (!adapter.listSessionsByUserId || !adapter.updateSession) return;
  try {
    const sessions = await adapter.listSessionsByUserId(userId);
    await Promise.all(
      sessions
        .filter((session) => session.error !== REFRESH_ERROR)
        .map((session) =>
          adapter.updateSession!({ sessionToken: session.sessionToken, error: REFRESH_ERROR }),
        ),
    );
  } catch (cause) {
    resolved.logger.error(
      new AdapterError("The sessions could not be marked as needing a new sign-in", { cause }),
    );
  }
}

/**
 * JWT strategy: re-issues the request's session cookie with `error: "RefreshTokenError"` (and
 * `patch`), handing the `Set-Cookie` values to `onCookies`, so the `jwt` and `session` callbacks
 * and the client's session see that a new sign-in is needed.
 */
async function markJwt(
  ctx: Context,
  token: JWT,
  patch: JWT,
  onCookies: ((setCookies: string[]) => void) | undefined,
) {
  if (token.error === REFRESH_ERROR && Object.keys(patch).length === 0) return;
  await reissueJwt(ctx, { ...token, ...patch, error: REFRESH_ERROR }, onCookies);
}

/** Writes `token` as the request's session cookie and hands the cookies to `onCookies`. */
async function reissueJwt(
  ctx: Context,
  token: JWT,
  onCookies: ((setCookies: string[]) => void) | undefined,
) {
  const { config } = ctx;
  const { name, options } = ctx.cookieOptions.sessionToken;
  const encoded = await config.jwt.encode({
    token,
    secret: config.secrets,
    salt: name,
    maxAge: config.jwt.maxAge,
  });
  const expires = new Date(Date.now() + config.session.maxAge * 1000);
  const cookies = writeChunked(ctx.req.cookies, name, encoded, { ...options, expires });
  onCookies?.(cookies.map(serializeCookie));
}

async function reread(adapter: Adapter, key: AccountKey): Promise<AdapterAccount | null> {
  return (await adapter.getAccount?.(key.providerAccountId, key.provider)) ?? null;
}

/**
 * The access token of the user's account with `providerId`, refreshed first when it expires
 * within `skew` seconds. `from` is a request (its session names the user) or `{ userId }`.
 *
 * Resolves to `null` when the request has no session, or the user has no account with the
 * provider. Throws {@link RefreshTokenError} when a new sign-in with the provider is needed: the
 * token expired and there is no refresh token, or the provider refused it (`invalid_grant`;
 * the account is then marked `error: "RefreshTokenError"` and fails fast until a new sign-in).
 * A network failure or a 5xx answer is retried once; stored tokens are never deleted.
 *
 * Needs an adapter with `getAccount`, `listAccountsByUserId` and `updateAccount`
 * (`lockAccount` too, for several processes). See docs/tokens.md.
 *
 * @example
 * ```ts
 * import { getAccessToken } from "@gatehouse/core";
 * import type { AuthConfig } from "@gatehouse/core";
 *
 * declare const config: AuthConfig;
 * declare const request: Request;
 * const token = await getAccessToken(request, config, "github");
 * if (token) await fetch("https://api.github.com/user", {
 *   headers: { authorization: `Bearer ${token.accessToken}` },
 * });
 * ```
 */
export async function getAccessToken(
  from: Request | { userId: string },
  config: AuthConfig,
  providerId: string,
  options?: GetAccessTokenOptions,
): Promise<AccessToken | null> {
  let resolved: ReturnType<typeof resolveConfig>;
  try {
    resolved = resolveConfig(config);
  } catch (error) {
    configLogger(config).error(error as Error);
    throw error;
  }
  const provider = resolved.providerById.get(providerId);
  if (!provider || (provider.type !== "oauth" && provider.type !== "oidc")) {
    throw new InvalidProvider(`No OAuth provider "${providerId}" is configured`);
  }
  const adapter = resolved.adapter;
  const skew = options?.skew ?? 60;
  if (!adapter) {
    if (from instanceof Request && resolved.session.strategy !== "database") {
      return fromJwt(from, resolved, provider as OAuthProvider, skew, options?.onCookies);
    }
    throw new MissingAdapter(
      "getAccessToken needs an adapter that stores provider accounts, or a request with a JWT session",
    );
  }
  if (!adapter.getAccount || !adapter.listAccountsByUserId || !adapter.updateAccount) {
    throw new MissingAdapterMethods(
      "getAccessToken needs the adapter methods getAccount, listAccountsByUserId and updateAccount",
    );
  }
  let userId: string;
  /** The request's JWT session, to mark when a new sign-in is needed. */
  let jwtSession: { ctx: Context; token: JWT } | undefined;
  if (from instanceof Request) {
    const req = requestOf(from, resolved);
    if (!req) return null;
    const ctx = new Context(req, resolved);
    const ref = await identifySession(ctx);
    if (!ref) return null;
    userId = ref.userId;
    if (ref.token) jwtSession = { ctx, token: ref.token };
  } else {
    userId = from.userId;
  }
  try {
    return await fromAdapter(resolved, adapter, provider as OAuthProvider, userId, skew);
  } catch (error) {
    if (error instanceof RefreshTokenError && jwtSession) {
      await markJwt(jwtSession.ctx, jwtSession.token, {}, options?.onCookies);
    }
    throw error;
  }
}

type Resolved = ReturnType<typeof resolveConfig>;

async function fromAdapter(
  resolved: Resolved,
  adapter: Adapter,
  provider: OAuthProvider,
  userId: string,
  skew: number,
): Promise<AccessToken | null> {
  const providerId = provider.id;
  const accounts = await adapter.listAccountsByUserId!(userId);
  const account = accounts.find((a) => a.provider === providerId);
  if (!account) return null;
  if (marked(account)) {
    // Sessions created since the mark (a sign-in with another provider) learn it too.
    await markSessions(resolved, adapter, userId);
    throw new RefreshTokenError(`The "${providerId}" account needs a new sign-in`);
  }
  if (fresh(account, skew)) return result(account);

  const key = keyOf(account);
  const inFlight = pendingByAdapter.get(adapter) ?? new Map<string, Promise<AccessToken>>();
  pendingByAdapter.set(adapter, inFlight);
  let refresh = inFlight.get(key);
  if (!refresh) {
    refresh = refreshShared(resolved, adapter, provider, account, skew);
    inFlight.set(key, refresh);
    const clear = () => {
      if (inFlight.get(key) === refresh) inFlight.delete(key);
    };
    refresh.then(clear, clear);
  }
  return refresh;
}

/** The request as the session code reads it; null (one `warn` line) for another host. */
function requestOf(
  request: Request,
  resolved: ReturnType<typeof resolveConfig>,
): RequestInternal | null {
  let url: URL;
  try {
    url = effectiveUrl(new URL(request.url), request.headers, resolved.url, resolved.trustHost);
  } catch (error) {
    if (!(error instanceof HostMismatch) && !(error instanceof TypeError)) throw error;
    const mistake = new Error(
      error instanceof HostMismatch ? error.message : "The request URL is not valid",
    );
    mistake.name = error instanceof HostMismatch ? "UntrustedHost" : "BadRequest";
    resolved.logger.warn("client-error", mistake);
    return null;
  }
  return {
    url,
    method: "GET",
    action: "session",
    providerId: undefined,
    headers: request.headers,
    cookies: parseCookies(request.headers.get("cookie")),
    query: {},
    body: undefined,
    original: request,
  };
}

/** One process's refresh of one account, under the adapter's lock when it has one. */
async function refreshShared(
  resolved: Resolved,
  adapter: Adapter,
  provider: OAuthProvider,
  account: AdapterAccount,
  skew: number,
): Promise<AccessToken> {
  if (!adapter.lockAccount) return refreshLocked(resolved, adapter, provider, account, skew);
  const key: AccountKey = {
    provider: account.provider,
    providerAccountId: account.providerAccountId,
  };
  const deadline = Date.now() + LOCK_TTL_MS + 1_000;
  for (;;) {
    const release = await adapter.lockAccount(key, LOCK_TTL_MS);
    if (release) {
      try {
        // Another process may have refreshed between our read and the lock.
        const current = (await reread(adapter, key)) ?? account;
        return await refreshLocked(resolved, adapter, provider, current, skew);
      } finally {
        await release();
      }
    }
    // Another process refreshes: wait for its result in the store, bounded.
    if (Date.now() > deadline) {
      throw new AuthError("Timed out waiting for another process to refresh the access token");
    }
    await sleep(POLL_MS);
    const stored = await reread(adapter, key);
    if (!stored) throw new RefreshTokenError("The provider account no longer exists");
    if (marked(stored)) throw new RefreshTokenError("The provider account needs a new sign-in");
    if (fresh(stored, skew)) return result(stored);
  }
}

async function refreshLocked(
  resolved: Resolved,
  adapter: Adapter,
  provider: OAuthProvider,
  account: AdapterAccount,
  skew: number,
): Promise<AccessToken> {
  if (marked(account)) throw new RefreshTokenError("The provider account needs a new sign-in");
  if (fresh(account, skew)) return result(account);
  const old = account.refresh_token;
  if (typeof old !== "string" || old === "") {
    throw new RefreshTokenError(
      `The "${provider.id}" access token expired and there is no refresh token`,
    );
  }
  const key: AccountKey = {
    provider: account.provider,
    providerAccountId: account.providerAccountId,
  };
  let tokens: oauth.TokenEndpointResponse;
  try {
    tokens = await grant(provider, old);
  } catch (cause) {
    const failure = refreshFailure(provider, cause);
    if (failure instanceof RefreshTokenError) {
      // Mark only if the stored token is still the one refused: a newer set stays usable.
      const stored = await adapter.updateAccount!(
        { ...key, error: REFRESH_ERROR },
        { ifRefreshToken: old },
      );
      if (stored) await markSessions(resolved, adapter, account.userId);
    }
    throw failure;
  }
  const update: Partial<AdapterAccount> & AccountKey = {
    ...key,
    access_token: tokens.access_token,
    token_type: tokens.token_type.toLowerCase() as Lowercase<string>,
    refresh_token: tokens.refresh_token ?? old,
    error: null,
  };
  if (typeof tokens.expires_in === "number") update.expires_at = now() + tokens.expires_in;
  if (typeof tokens.scope === "string") update.scope = tokens.scope;
  if (typeof tokens.id_token === "string") update.id_token = tokens.id_token;
  const stored = await adapter.updateAccount!(update, { ifRefreshToken: old });
  if (stored) return result(stored);
  // Another writer stored a newer set first: it wins.
  const current = await reread(adapter, key);
  if (current && fresh(current, 0)) return result(current);
  return result({ ...account, ...update } as AdapterAccount);
}

/** The refresh_token grant; a network failure or a 5xx answer is tried once more. */
async function grant(provider: OAuthProvider, refreshToken: string) {
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

function readProviderTokens(token: JWT): ProviderTokens | null {
  const set = token[PROVIDER_TOKENS_CLAIM] as Partial<ProviderTokens> | undefined;
  if (!set || typeof set !== "object") return null;
  if (typeof set.provider !== "string" || typeof set.access_token !== "string") return null;
  return set as ProviderTokens;
}

/** Refreshes in this process, per refresh token, under the JWT strategy. */
const pendingJwt = new Map<string, Promise<ProviderTokens>>();

async function fromJwt(
  request: Request,
  resolved: ReturnType<typeof resolveConfig>,
  provider: OAuthProvider,
  skew: number,
  onCookies: ((setCookies: string[]) => void) | undefined,
): Promise<AccessToken | null> {
  const req = requestOf(request, resolved);
  if (!req) return null;
  const ctx = new Context(req, resolved);
  const { name } = ctx.cookieOptions.sessionToken;
  const value = readChunked(ctx.req.cookies, name);
  if (!value) return null;
  let token: JWT | null;
  try {
    token = await resolved.jwt.decode({ token: value, secret: resolved.secrets, salt: name });
  } catch (error) {
    if (error instanceof JWTSessionError) return null;
    throw error;
  }
  if (!token) return null;
  const { revocation } = resolved.session;
  if (revocation && (await isRevoked(revocation, token))) return null;
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

/** The error a failed refresh grant becomes: `invalid_grant` needs a new sign-in. */
function refreshFailure(provider: OAuthProvider, cause: unknown): AuthError {
  if (cause instanceof oauth.ResponseBodyError && cause.error === "invalid_grant") {
    return new RefreshTokenError(`The "${provider.id}" provider refused the refresh token`, {
      cause,
    });
  }
  if (cause instanceof AuthError) return cause;
  const detail = cause instanceof oauth.ResponseBodyError ? ` (error=${cause.error})` : "";
  return new AuthError(`Refreshing the "${provider.id}" access token failed${detail}`, { cause });
}
