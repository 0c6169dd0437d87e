/**
 * Rate limits of sign-in (issue 14): per client address for every sign-in action, per address
 * for sign-in emails, and an exponential backoff of failed credentials per account and client
 * address. Over a limit, an action throws {@link RateLimited}; `Auth()` answers it.
 *
 * A request whose client address is unknown (no `clientAddress` hook, no `trustedProxies`) skips
 * the per-client limits: counting every unknown client in one bucket would let anyone lock
 * everyone out. Its failed credentials are counted per account alone, under a generous rule
 * ({@link unknownClientBackoff}).
 *
 * A store that fails lets the request through (one error line): a broken Redis must not stop every
 * sign-in.
 */
import { clientBucket } from "../client-address.js";
import type { Context } from "../context.js";
import { AdapterError, AuthError, RateLimited } from "../errors.js";
import type { BackoffRule, RateLimitCount, RateLimitRule } from "../types/abuse.js";
import type { CredentialsConfig } from "../types/providers.js";
import { accountOf, limitKey, loggableKey } from "./keys.js";
import { syncStore } from "./memory.js";

/** An action with a per-client limit. */
export type LimitedAction = "credentials" | "email" | "webauthn" | "oauth";

function storeFailed(ctx: Context, cause: unknown): void {
  ctx.config.logger.error(new AdapterError("The rate-limit store failed", { cause }));
}

function refuse(what: string, key: string, seconds: number): never {
  const wait = Math.max(1, Math.ceil(seconds));
  throw new RateLimited(`${what} (limit ${loggableKey(key)}); retry in ${wait} s`, wait);
}

/**
 * Counts one request against a fixed-window rule and refuses it over the limit. A store that
 * fails lets the request through, with one error line.
 */
async function consume(
  ctx: Context,
  limit: string,
  rule: RateLimitRule,
  parts: string[],
  what: string,
): Promise<void> {
  const made = limitKey(ctx.config.secrets[0]!, limit, parts);
  const key = typeof made === "string" ? made : await made;
  let count: RateLimitCount;
  const store = ctx.config.rateLimitStore;
  const sync = syncStore(store);
  try {
    count = sync
      ? sync.hit(key, rule.windowSeconds * 1000)
      : await store.hit(key, rule.windowSeconds * 1000);
  } catch (cause) {
    return storeFailed(ctx, cause);
  }
  if (count.count > rule.max) refuse(what, key, (count.resetAt - Date.now()) / 1000);
}

/**
 * The per-client limit of an action. Skipped when the limit is off or the address unknown.
 *
 * @example
 * ```ts
 * await limitClient(ctx, "oauth"); // throws RateLimited over 60 starts a minute from one client
 * ```
 */
export async function limitClient(ctx: Context, action: LimitedAction): Promise<void> {
  const rule = ctx.config.rateLimit[action].perClient;
  if (!rule) return;
  const found = clientBucket(ctx);
  const bucket = found instanceof Promise ? await found : found;
  if (!bucket) return;
  const what = `Too many ${action} requests from one client`;
  await consume(ctx, `${action}.perClient`, rule, [bucket], what);
}

/** The per-address limit of sign-in emails; `identifier` is the normalised address. */
export async function limitEmail(ctx: Context, identifier: string): Promise<void> {
  const rule = ctx.config.rateLimit.email.perAddress;
  if (!rule) return;
  const what = "Too many sign-in emails to one address";
  await consume(ctx, "email.perAddress", rule, [identifier], what);
}

/**
 * The backoff of a request whose client address is unknown, counted per account alone: ten times
 * the free failures and waits of at most a minute, so that a stranger who fails on purpose slows a
 * real user down by a minute at most, while guessing stays slow (about one guess a minute).
 */
export function unknownClientBackoff(rule: BackoffRule): BackoffRule {
  return {
    freeAttempts: rule.freeAttempts * 10,
    baseSeconds: Math.min(rule.baseSeconds, 60),
    maxSeconds: Math.min(rule.maxSeconds, 60),
  };
}

/**
 * Seconds a client must wait after its `failures`-th failure in a row: nothing for the free ones,
 * then `baseSeconds` after the first failure past them, doubling up to `maxSeconds`.
 */
export function backoffSeconds(failures: number, rule: BackoffRule): number {
  const past = failures - rule.freeAttempts;
  if (past <= 0) return 0;
  return Math.min(rule.baseSeconds * 2 ** (past - 1), rule.maxSeconds);
}

/**
 * How long a failure streak is remembered after its last failure: four times the longest wait,
 * and at least an hour, so that waiting out one backoff does not wipe the streak.
 */
export function streakSeconds(rule: BackoffRule): number {
  return Math.max(rule.maxSeconds * 4, 60 * 60);
}

/** What the credentials callback reports back once `authorize` has answered. */
export interface CredentialsAttempt {
  /** `authorize` refused: one more failure for this account from this client. */
  failed(): Promise<void>;
  /** `authorize` accepted: this account's failures from this client are forgotten. */
  succeeded(): Promise<void>;
}

const done = Promise.resolve();
const unlimited: CredentialsAttempt = { failed: () => done, succeeded: () => done };

/**
 * Checks a credentials attempt before `authorize` runs: the per-client limit, then the backoff of
 * this account from this client (a streak of failures from one address never slows the same
 * account down from another). Throws {@link RateLimited} when the attempt must wait. The two store
 * calls go out together: one round trip to a shared store, not two.
 */
export async function checkCredentialsAttempt(
  ctx: Context,
  provider: CredentialsConfig,
  credentials: Record<string, unknown>,
): Promise<CredentialsAttempt> {
  const limits = ctx.config.rateLimit.credentials;
  if (!limits.perClient && !limits.failures) return unlimited;
  const found = clientBucket(ctx);
  const bucket = found instanceof Promise ? await found : found;
  const perClient = bucket ? limits.perClient : null;
  const rule =
    limits.failures && (bucket ? limits.failures : unknownClientBackoff(limits.failures));
  let account = "";
  if (rule) {
    try {
      account = accountOf(credentials, provider.credentials, limits.account);
    } catch (cause) {
      ctx.config.logger.error(new AuthError("rateLimit.credentials.account threw", { cause }));
    }
  }
  // Neither an account nor an address: nothing to count by that would not be one global bucket.
  const counted = rule && (account !== "" || bucket) ? rule : null;
  const secret = ctx.config.secrets[0]!;
  const clientMade =
    perClient && bucket ? limitKey(secret, "credentials.perClient", [bucket]) : null;
  const clientKey = typeof clientMade === "object" && clientMade ? await clientMade : clientMade;
  const failMade = counted
    ? limitKey(secret, "credentials.failures", [account, bucket ?? "unknown client"])
    : null;
  const key = typeof failMade === "object" && failMade ? await failMade : failMade;

  const store = ctx.config.rateLimitStore;
  // The memory store answers without promises: nothing to wait for on the default path.
  const sync = syncStore(store);
  const failed = (cause: unknown) => storeFailed(ctx, cause);
  let count: RateLimitCount | null = null;
  let streak: RateLimitCount | null = null;
  let broken = false;
  try {
    if (sync) {
      count = clientKey && perClient ? sync.hit(clientKey, perClient.windowSeconds * 1000) : null;
      streak = key ? sync.peek(key) : null;
    } else {
      [count, streak] = await Promise.all([
        clientKey && perClient ? store.hit(clientKey, perClient.windowSeconds * 1000) : null,
        key ? store.peek(key) : null,
      ]);
    }
  } catch (cause) {
    // Fails open: a broken store must not stop every sign-in.
    broken = true;
    failed(cause);
  }
  if (clientKey && perClient && count && count.count > perClient.max) {
    const what = "Too many credentials attempts from one client";
    refuse(what, clientKey, (count.resetAt - Date.now()) / 1000);
  }
  if (!key || !counted || broken) return unlimited;
  const memoryMs = streakSeconds(counted) * 1000;
  const tooMany = "Too many failed sign-ins for one account from one client";
  if (streak) {
    const wait = backoffSeconds(streak.count, counted);
    // Every failure moves the streak's end to `memoryMs` after it: the last failure is at resetAt - memoryMs.
    const until = streak.resetAt - memoryMs + wait * 1000;
    const now = Date.now();
    if (wait > 0 && until > now) refuse(tooMany, key, (until - now) / 1000);
  }
  // The attempt counts as a failure before `authorize` runs (a success takes it back), so that a
  // burst of simultaneous attempts cannot all pass the check above before any of them is counted:
  // an attempt that finds more attempts counted than the streak it checked had one in flight
  // beside it, and waits as if that one had failed just now.
  let mine: RateLimitCount | null = null;
  try {
    mine = sync
      ? sync.hit(key, memoryMs, { extend: true })
      : await store.hit(key, memoryMs, { extend: true });
  } catch (cause) {
    failed(cause);
  }
  if (mine && mine.count > (streak?.count ?? 0) + 1) {
    const wait = backoffSeconds(mine.count - 1, counted);
    if (wait > 0) refuse(tooMany, key, wait);
  }
  return {
    failed: () => done,
    succeeded: () => {
      if (!sync) return store.reset(key).catch(failed);
      sync.reset(key);
      return done;
    },
  };
}
