/**
 * Instant revocation of JWT sessions: the one store call a JWT session check makes when
 * `session.revocation` is set, its optional in-process cache, and what a JWT session records
 * for listing. Nothing here runs without a revocation store.
 */
import type { Context } from "../../context.js";
import { AdapterError } from "../../errors.js";
import { requestClient } from "../../session/client.js";
import type { SessionGuard } from "../../session/guard.js";
import { jwtSessionId, jwtSessionStart, LEGACY_SESSION_ID } from "../../session/ids.js";
import { retryWithin, type StoreDeadline } from "../../session/store-deadline.js";
import type { JWT } from "../../types/models.js";
import type { RevocationOptions, RevocationSessionRecord, RevocationStore } from "./options.js";

export { jwtSessionId, jwtSessionStart } from "../../session/ids.js";

/** Most answers one store's cache holds; the oldest go first. */
const CACHE_LIMIT = 10_000;

interface Cached {
  revoked: boolean;
  until: number;
}

const caches = new WeakMap<RevocationStore, Map<string, Cached>>();

/**
 * Whether the store says the token's session is revoked: one store call, or none when a cached
 * answer younger than `maxStaleness` exists. A token without a subject cannot be revoked.
 */
export function isRevoked(options: RevocationOptions, token: JWT): Promise<boolean> {
  const userId = token.sub;
  if (typeof userId !== "string" || userId === "") return Promise.resolve(false);
  const params = { userId, sessionId: jwtSessionId(token), issuedAt: jwtSessionStart(token) };
  const staleness = options.maxStaleness ?? 0;
  // No async wrapper here: the check costs the store's own promise and nothing more.
  if (!(staleness > 0)) return options.store.check(params);
  return cachedCheck(options.store, params, staleness);
}

async function cachedCheck(
  store: RevocationStore,
  params: { userId: string; sessionId: string; issuedAt: number },
  staleness: number,
): Promise<boolean> {
  let cache = caches.get(store);
  if (!cache) {
    cache = new Map();
    caches.set(store, cache);
  }
  const key = JSON.stringify([params.userId, params.sessionId, params.issuedAt]);
  const now = Date.now();
  const hit = cache.get(key);
  if (hit && hit.until > now) return hit.revoked;
  const revoked = await store.check(params);
  cache.delete(key);
  if (cache.size >= CACHE_LIMIT) {
    const oldest = cache.keys().next();
    if (!oldest.done) cache.delete(oldest.value);
  }
  cache.set(key, { revoked, until: now + staleness });
  return revoked;
}

/** Forgets this process's cached answers for a store: a revocation made here applies at once. */
export function forgetCachedChecks(store: RevocationStore): void {
  caches.get(store)?.clear();
}

/**
 * Tells the store about a JWT session (at sign-in, and when the token is re-issued), if it keeps
 * a list. Fields left `undefined` (the provider, on a re-issue) keep what the store has. A store
 * failure is logged and does not fail the request: the session works, it is just not listed.
 */
export async function recordJwtSession(
  ctx: Context,
  token: JWT,
  expires: Date,
  signIn?: { provider: string | null; providerType: string | null },
): Promise<void> {
  const options = ctx.config.session.revocation;
  const userId = token.sub;
  if (!options?.store.recordSession || typeof userId !== "string" || userId === "") return;
  const sessionId = jwtSessionId(token);
  if (sessionId === LEGACY_SESSION_ID) return;
  const record: RevocationSessionRecord = {
    userId,
    sessionId,
    expires,
    createdAt: new Date(jwtSessionStart(token) * 1000),
    lastSeenAt: new Date(),
    ...(await requestClient(ctx)),
    ...(signIn ?? {}),
  };
  try {
    await options.store.recordSession(record);
  } catch (cause) {
    ctx.config.logger.error(
      new AdapterError("The revocation store could not record the session", { cause }),
    );
  }
}

/**
 * Signing out revokes the token's session in the store, so a copy of the cookie kept elsewhere
 * stops working too. A token without `sid` cannot be revoked alone. A store that fails is retried
 * until `deadline`, then `SessionStoreUnavailable` is thrown.
 */
async function revokeOwnToken(
  ctx: Context,
  store: RevocationStore,
  token: JWT,
  deadline: StoreDeadline,
): Promise<void> {
  const userId = token.sub;
  const sessionId = jwtSessionId(token);
  if (typeof userId !== "string" || sessionId === LEGACY_SESSION_ID) return;
  const exp = typeof token.exp === "number" ? token.exp * 1000 : 0;
  const expires = new Date(Math.max(exp, Date.now() + ctx.config.session.maxAge * 1000));
  await retryWithin(deadline, "revokeSession", async () => {
    await store.revokeSession({ userId, sessionId, expires });
  });
  forgetCachedChecks(store);
}

/**
 * The sign-in time of a new session: `now`, or `now + 1` when the store already counts a session
 * of the user starting at `now` as revoked. Epochs are whole seconds, so a session issued in the
 * second of a revocation of every session of the user (a password reset, a change of address,
 * "sign out everywhere", then signing in again at once) would otherwise be born revoked. The
 * revocation was written before this check, so this session comes after it; a session issued
 * before it keeps its own earlier `auth_time` and stays revoked. A store that cannot answer
 * leaves `now`: the sign-in goes on as before.
 */
async function sessionStart(
  store: RevocationStore,
  userId: string,
  sessionId: string,
  now: number,
): Promise<number> {
  try {
    return (await store.check({ userId, sessionId, issuedAt: now })) ? now + 1 : now;
  } catch {
    return now;
  }
}

/** The revocation store as the JWT session's guard (./guard.ts). */
export function revocationGuard(options: RevocationOptions): SessionGuard {
  return {
    isRevoked: (token) => isRevoked(options, token),
    sessionStart: (userId, sessionId, now) => sessionStart(options.store, userId, sessionId, now),
    issued: (ctx, token, expires, origin) => recordJwtSession(ctx, token, expires, origin),
    signedOut: (ctx, token, deadline) => revokeOwnToken(ctx, options.store, token, deadline),
  };
}
