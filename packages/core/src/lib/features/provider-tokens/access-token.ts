/**
 * `getAccessToken()`: the provider access token of a signed-in user, refreshed with the stored
 * refresh token when it is about to expire. One refresh per account at a time: in this process
 * through a map of pending refreshes, across processes through the adapter's `lockAccount`; the
 * new token set is written with a compare-and-swap on the old refresh token (`updateAccount`), so
 * a rotated refresh token is stored once and an older set never overwrites a newer one.
 */
import type * as oauth from "oauth4webapi";
import { capabilitiesOf } from "../../capabilities.js";
import { configLogger, resolveConfig } from "../../config.js";
import { Context } from "../../context.js";
import {
  AdapterError,
  AuthError,
  InvalidProvider,
  MissingAdapter,
  MissingAdapterMethods,
  RefreshTokenError,
} from "../../errors.js";
import type { OAuthProvider } from "../../oauth/provider.js";
import { sessionRequest } from "../../request.js";
import { identifySession } from "../../session/index.js";
import type { AuthConfig } from "../../types/config.js";
import type { Adapter, AdapterAccount } from "../../types/models.js";
import {
  type AccessToken,
  fresh,
  grant,
  now,
  REFRESH_ERROR,
  refreshFailure,
  result,
} from "./grant.js";
import { fromJwt, markJwt } from "./jwt-tokens.js";

export type { AccessToken } from "./grant.js";

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

/** How long one process holds the cross-process refresh lock, at most. */
const LOCK_TTL_MS = 15_000;
/** How often a process that waits for another's refresh reads the stored account. */
const POLL_MS = 50;

type AccountKey = Pick<AdapterAccount, "provider" | "providerAccountId">;
const keyOf = (a: AccountKey) => JSON.stringify([a.provider, a.providerAccountId]);

/** Refreshes under way in this process, per adapter (store) and account. */
const pendingByAdapter = new WeakMap<Adapter, Map<string, Promise<AccessToken>>>();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function marked(account: AdapterAccount): boolean {
  return account.error === REFRESH_ERROR;
}

/**
 * Database strategy: the user's sessions carry the mark (`error: "RefreshTokenError"`), so the
 * `session` callback and the client's session see that a new sign-in is needed. A failure to
 * mark is logged: the thrown `RefreshTokenError` is what the caller needs first.
 */
async function markSessions(resolved: Resolved, userId: string) {
  if (resolved.session.strategy !== "database") return;
  const { listSessions, updateSession } = capabilitiesOf(resolved);
  if (!listSessions || !updateSession) return;
  try {
    const sessions = await listSessions(userId);
    await Promise.all(
      sessions
        .filter((session) => session.error !== REFRESH_ERROR)
        .map((session) =>
          updateSession({ sessionToken: session.sessionToken, error: REFRESH_ERROR }),
        ),
    );
  } catch (cause) {
    resolved.logger.error(
      new AdapterError("The sessions could not be marked as needing a new sign-in", { cause }),
    );
  }
}

async function reread(resolved: Resolved, key: AccountKey): Promise<AdapterAccount | null> {
  return (await capabilitiesOf(resolved).getAccount?.(key.providerAccountId, key.provider)) ?? null;
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
 * import { getAccessToken } from "@gatehousejs/core";
 * import type { AuthConfig } from "@gatehousejs/core";
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
  if (!(from instanceof Request) && !adapter) {
    throw new MissingAdapter(
      "getAccessToken({ userId }) needs an adapter that stores provider accounts",
    );
  }
  const can = capabilitiesOf(resolved);
  if (adapter && (!can.getAccount || !can.listAccounts || !can.updateAccount)) {
    throw new MissingAdapterMethods(
      "getAccessToken needs the adapter methods getAccount, listAccountsByUserId and updateAccount",
    );
  }
  if (!(from instanceof Request)) {
    return fromAdapter(resolved, adapter!, provider as OAuthProvider, from.userId, skew);
  }
  const req = sessionRequest(from, resolved);
  if (!req) return null;
  const ctx = new Context(req, resolved);
  const ref = await identifySession(ctx);
  if (!ref) return null;
  if (!adapter) {
    // JWT strategy without an adapter: the tokens live in the session JWT.
    return fromJwt(ctx, ref.token!, provider as OAuthProvider, skew, options?.onCookies);
  }
  try {
    return await fromAdapter(resolved, adapter, provider as OAuthProvider, ref.userId, skew);
  } catch (error) {
    // JWT strategy with an adapter: the session cookie carries the mark too.
    if (error instanceof RefreshTokenError && ref.token) {
      await markJwt(ctx, ref.token, {}, options?.onCookies);
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
  const accounts = await capabilitiesOf(resolved).listAccounts!(userId);
  const account = accounts.find((a) => a.provider === providerId);
  if (!account) return null;
  if (marked(account)) {
    // Sessions created since the mark (a sign-in with another provider) learn it too.
    await markSessions(resolved, userId);
    throw new RefreshTokenError(`The "${providerId}" account needs a new sign-in`);
  }
  if (fresh(account, skew)) return result(account);

  const key = keyOf(account);
  const inFlight = pendingByAdapter.get(adapter) ?? new Map<string, Promise<AccessToken>>();
  pendingByAdapter.set(adapter, inFlight);
  let refresh = inFlight.get(key);
  if (!refresh) {
    refresh = refreshShared(resolved, provider, account, skew);
    inFlight.set(key, refresh);
    const clear = () => {
      if (inFlight.get(key) === refresh) inFlight.delete(key);
    };
    refresh.then(clear, clear);
  }
  return refresh;
}

/** One process's refresh of one account, under the adapter's lock when it has one. */
async function refreshShared(
  resolved: Resolved,
  provider: OAuthProvider,
  account: AdapterAccount,
  skew: number,
): Promise<AccessToken> {
  const { lockAccount } = capabilitiesOf(resolved);
  if (!lockAccount) return refreshLocked(resolved, provider, account, skew);
  const key: AccountKey = {
    provider: account.provider,
    providerAccountId: account.providerAccountId,
  };
  const deadline = Date.now() + LOCK_TTL_MS + 1_000;
  for (;;) {
    const release = await lockAccount(key, LOCK_TTL_MS);
    if (release) {
      try {
        // Another process may have refreshed between our read and the lock.
        const current = (await reread(resolved, key)) ?? account;
        return await refreshLocked(resolved, provider, current, skew);
      } finally {
        await release();
      }
    }
    // Another process refreshes: wait for its result in the store, bounded.
    if (Date.now() > deadline) {
      throw new AuthError("Timed out waiting for another process to refresh the access token");
    }
    await sleep(POLL_MS);
    const stored = await reread(resolved, key);
    if (!stored) throw new RefreshTokenError("The provider account no longer exists");
    if (marked(stored)) throw new RefreshTokenError("The provider account needs a new sign-in");
    if (fresh(stored, skew)) return result(stored);
  }
}

async function refreshLocked(
  resolved: Resolved,
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
      const stored = await capabilitiesOf(resolved).updateAccount!(
        { ...key, error: REFRESH_ERROR },
        { ifRefreshToken: old },
      );
      if (stored) await markSessions(resolved, account.userId);
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
  const stored = await capabilitiesOf(resolved).updateAccount!(update, { ifRefreshToken: old });
  if (stored) return result(stored);
  // Another writer stored a newer set first: it wins.
  const current = await reread(resolved, key);
  if (current && fresh(current, 0)) return result(current);
  return result({ ...account, ...update } as AdapterAccount);
}
