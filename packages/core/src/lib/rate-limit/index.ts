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
import { bucketOf, clientIp } from "../client-address.js";
import type { Context } from "../context.js";
import { AdapterError, AuthError, RateLimited } from "../errors.js";
import type { BackoffRule, RateLimitCount, RateLimitRule } from "../types/abuse.js";
import type { CredentialsConfig } from "../types/providers.js";
import { accountOf, limitKey, loggableKey, plainKey } from "./keys.js";
import { type SyncRateLimitStore, syncStore } from "./memory.js";

/** The credentials limit per client address. */
const PER_CLIENT = "credentials.perClient";

/** An action with a per-client limit. */
export type LimitedAction = "credentials" | "email" | "webauthn" | "oauth";

function storeFailed(ctx: Context, cause: unknown): void {
  ctx.config.logger.error(new AdapterError("The rate-limit store failed", { cause }));
}

/**
 * A counter: its limit (the memory store's partition), what it counts, and its key in the store.
 */
interface Counter {
  limit: string;
  parts: string[];
  key: string;
}

/**
 * The counter of a limit over some parts: a plain key in this process's memory store (no hash per
 * attempt), a hashed one in every other store. A promise only where hashing needs WebCrypto.
 */
function counterOf(
  ctx: Context,
  sync: SyncRateLimitStore | undefined,
  limit: string,
  parts: string[],
): Counter | Promise<Counter> {
  const plain = sync ? plainKey(parts) : null;
  if (plain !== null) return { limit, parts, key: plain };
  const key = limitKey(ctx.config.secrets[0]!, limit, parts);
  return typeof key === "string"
    ? { limit, parts, key }
    : key.then((hashed) => ({ limit, parts, key: hashed }));
}

/** Throws {@link RateLimited}; the message names the limit and its hashed key, never the parts. */
function refuse(
  ctx: Context,
  what: string,
  limit: string,
  parts: string[],
  seconds: number,
): never {
  const wait = Math.max(1, Math.ceil(seconds));
  const named = loggableKey(ctx.config.secrets[0]!, limit, parts);
  throw new RateLimited(`${what} (limit ${named}); retry in ${wait} s`, wait);
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
  const store = ctx.config.rateLimitStore;
  const sync = syncStore(store);
  const made = counterOf(ctx, sync, limit, parts);
  const counter = made instanceof Promise ? await made : made;
  let count: Readonly<RateLimitCount>;
  try {
    count = sync
      ? sync.hit(limit, counter.key, rule.windowSeconds * 1000)
      : await store.hit(counter.key, rule.windowSeconds * 1000);
  } catch (cause) {
    return storeFailed(ctx, cause);
  }
  if (count.count > rule.max) refuse(ctx, what, limit, parts, (count.resetAt - Date.now()) / 1000);
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
  const found = clientIp(ctx);
  const ip = found instanceof Promise ? await found : found;
  if (!ip) return;
  const what = `Too many ${action} requests from one client`;
  const limit = `${action}.perClient`;
  const sync = syncStore(ctx.config.rateLimitStore);
  if (!sync) return consume(ctx, limit, rule, [bucketOf(ip)], what);
  const count = sync.hitAddress(limit, ip, rule.windowSeconds * 1000);
  if (count.count > rule.max) {
    refuse(ctx, what, limit, [bucketOf(ip)], (count.resetAt - Date.now()) / 1000);
  }
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
  /**
   * `authorize` refused or threw: one more failure for this account from this client. Exactly one
   * of `failed` and `succeeded` is called per attempt.
   */
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
  const found = clientIp(ctx);
  const ip = found instanceof Promise ? await found : found;
  const bucket = ip ? bucketOf(ip) : null;
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
  const store = ctx.config.rateLimitStore;
  // The memory store answers without promises: nothing to wait for on the default path.
  const sync = syncStore(store);
  // A shared store counts the client under a hashed key; the memory store by the address itself.
  const clientMade =
    perClient && bucket && !sync ? counterOf(ctx, sync, PER_CLIENT, [bucket]) : null;
  const client = clientMade instanceof Promise ? await clientMade : clientMade;
  const failMade = counted
    ? counterOf(ctx, sync, "credentials.failures", [account, bucket ?? "unknown client"])
    : null;
  const failures = failMade instanceof Promise ? await failMade : failMade;

  const failed = (cause: unknown) => storeFailed(ctx, cause);
  let count: Readonly<RateLimitCount> | null = null;
  // Copied out: the memory store's synchronous counters change with its next hit.
  let streakCount = 0;
  let streakReset = 0;
  let broken = false;
  try {
    let streak: Readonly<RateLimitCount> | null;
    if (sync) {
      count =
        ip && perClient ? sync.hitAddress(PER_CLIENT, ip, perClient.windowSeconds * 1000) : null;
      streak = failures ? sync.peek(failures.limit, failures.key) : null;
    } else {
      [count, streak] = await Promise.all([
        client && perClient ? store.hit(client.key, perClient.windowSeconds * 1000) : null,
        failures ? store.peek(failures.key) : null,
      ]);
    }
    if (streak) {
      streakCount = streak.count;
      streakReset = streak.resetAt;
    }
  } catch (cause) {
    // Fails open: a broken store must not stop every sign-in.
    broken = true;
    failed(cause);
  }
  if (bucket && perClient && count && count.count > perClient.max) {
    const what = "Too many credentials attempts from one client";
    refuse(ctx, what, PER_CLIENT, [bucket], (count.resetAt - Date.now()) / 1000);
  }
  if (!failures || !counted || broken) return unlimited;
  const memoryMs = streakSeconds(counted) * 1000;
  const tooMany = "Too many failed sign-ins for one account from one client";
  if (streakCount > 0) {
    const wait = backoffSeconds(streakCount, counted);
    // Every failure moves the streak's end to `memoryMs` after it: the last failure is at resetAt - memoryMs.
    const until = streakReset - memoryMs + wait * 1000;
    const now = Date.now();
    if (wait > 0 && until > now)
      refuse(ctx, tooMany, failures.limit, failures.parts, (until - now) / 1000);
  }
  if (sync) return inFlight(ctx, sync, failures, counted, streakCount, memoryMs);
  // The attempt counts as a failure before `authorize` runs (a success takes it back), so that a
  // burst of simultaneous attempts cannot all pass the check above before any of them is counted:
  // an attempt that finds more attempts counted than the streak it checked had one in flight
  // beside it, and waits as if that one had failed just now. In a shared store this is how
  // instances see each other's attempts in flight.
  let mine: Readonly<RateLimitCount> | null = null;
  try {
    mine = await store.hit(failures.key, memoryMs, { extend: true });
  } catch (cause) {
    failed(cause);
  }
  if (mine && mine.count > streakCount + 1) {
    const wait = backoffSeconds(mine.count - 1, counted);
    if (wait > 0) refuse(ctx, tooMany, failures.limit, failures.parts, wait);
  }
  const key = failures.key;
  return {
    failed: () => done,
    succeeded: () => store.reset(key).catch(failed),
  };
}

/** Attempts of one account from one client whose `authorize` is still running, in one process. */
interface Flight {
  /** How many. */
  count: number;
  /** Whether a failure landed while any of them was in flight. */
  failed: boolean;
  /** When the latest of them started, in milliseconds. */
  started: number;
}

/**
 * Attempts in flight longer than this are taken to be lost (an `authorize` that never settles),
 * so that one hung request cannot hold an account back from a client for the life of the process.
 */
const FLIGHT_MS = 5 * 60 * 1000;

/** Per memory store: its attempts in flight (a small map: only attempts awaiting `authorize`). */
const flights = new WeakMap<SyncRateLimitStore, Map<string, Flight>>();

/**
 * The memory store's side of a burst: attempts in flight are counted in a small map beside the
 * store, and only a failure writes to the store, so that a sign-in without failures reads the
 * store once (one `peek` that misses) instead of writing a counter and taking it back. An attempt
 * that finds others in flight waits as if they had all failed just now, as with a shared store.
 */
function inFlight(
  ctx: Context,
  sync: SyncRateLimitStore,
  failures: Counter,
  rule: BackoffRule,
  streakCount: number,
  memoryMs: number,
): CredentialsAttempt {
  let byKey = flights.get(sync);
  if (!byKey) {
    byKey = new Map();
    flights.set(sync, byKey);
  }
  const key = failures.key;
  const now = Date.now();
  let flight = byKey.get(key);
  if (flight && now - flight.started > FLIGHT_MS) {
    byKey.delete(key);
    flight = undefined;
  }
  if (flight) {
    const wait = backoffSeconds(streakCount + flight.count, rule);
    if (wait > 0) {
      refuse(
        ctx,
        "Too many failed sign-ins for one account from one client",
        failures.limit,
        failures.parts,
        wait,
      );
    }
    flight.count++;
    flight.started = now;
  } else {
    flight = { count: 1, failed: false, started: now };
    byKey.set(key, flight);
  }
  const mine = flight;
  let landed = false;
  /** Takes this attempt off its flight; false when it already was. */
  const land = (): boolean => {
    if (landed) return false;
    landed = true;
    // A flight dropped as lost, or replaced since, is not this attempt's to count down.
    if (byKey.get(key) === mine && --mine.count === 0) byKey.delete(key);
    return true;
  };
  return {
    failed: () => {
      if (!land()) return done;
      mine.failed = true;
      sync.hit(failures.limit, key, memoryMs, { extend: true });
      return done;
    },
    succeeded: () => {
      // Forgets the streak: the one checked, or one a failure beside this attempt started.
      if (land() && (streakCount > 0 || mine.failed)) sync.reset(failures.limit, key);
      return done;
    },
  };
}
