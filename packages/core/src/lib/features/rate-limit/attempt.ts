/**
 * The limits of a credentials attempt: the per-client limit, and the failure backoff of the
 * account, counted per client address, per account alone when the address is unknown, or per
 * device when the browser shows a device cookie of the account (see device.ts).
 */
import { bucketOf, clientIp } from "../../client-address.js";
import type { Context } from "../../context.js";
import { AuthError } from "../../errors.js";
import type { Cookie } from "../../types/config.js";
import type { CredentialsConfig } from "../../types/providers.js";
import {
  backoffSeconds,
  counterOf,
  refuse,
  storeFailed,
  streakSeconds,
  unknownClientBackoff,
} from "./common.js";
import { type Device, deviceCookie, deviceOf, holdsAccount } from "./device.js";
import { done, inFlight, type Outcome, type Streak } from "./in-flight.js";
import { accountOf } from "./keys.js";
import { syncStore } from "./memory.js";
import type { RateLimitCount } from "./options.js";
import { rateLimitsOf } from "./state.js";

/** The credentials limit per client address. */
const PER_CLIENT = "credentials.perClient";
/** Failures of an account from a client address, or from anyone when the address is unknown. */
const FAILURES = "credentials.failures";
/** Failures of an account from a browser that signed in to it before. */
const DEVICE = "credentials.device";

/** What the credentials callback reports back once `authorize` has answered. */
export interface CredentialsAttempt {
  /**
   * `authorize` refused or threw: one more failure on this attempt's streak. Exactly one of
   * `failed` and `succeeded` is called per attempt.
   */
  failed(): Promise<void>;
  /** `authorize` accepted: the streak of this account from this client or device is forgotten. */
  succeeded(): Promise<void>;
  /**
   * The device cookie to set once the sign-in is complete, so that this browser's failures on
   * the account are counted apart from everyone else's; `null` when the backoff is off.
   */
  signedIn(): Promise<Cookie | null>;
}

const none = Promise.resolve(null);
const unlimited: CredentialsAttempt = {
  failed: () => done,
  succeeded: () => done,
  signedIn: () => none,
};

/** The attempt's outcome, and the device cookie its success writes. */
function attemptOf(
  ctx: Context,
  outcome: Outcome,
  account: string,
  device: Device | null,
): CredentialsAttempt {
  return {
    failed: outcome.failed,
    succeeded: outcome.succeeded,
    // No account field, nothing to remember the browser for.
    signedIn: account === "" ? () => none : () => deviceCookie(ctx, account, device),
  };
}

/**
 * Checks a credentials attempt before `authorize` runs: the per-client limit, then the backoff of
 * this account from this client (a streak of failures from one address never slows the same
 * account down from another) or from this device. Throws {@link RateLimited} when the attempt
 * must wait. The two store calls go out together: one round trip to a shared store, not two.
 */
export async function checkCredentialsAttempt(
  ctx: Context,
  provider: CredentialsConfig,
  credentials: Record<string, unknown>,
): Promise<CredentialsAttempt> {
  const limits = rateLimitsOf(ctx.config).limits.credentials;
  if (!limits.perClient && !limits.failures) return unlimited;
  let account = "";
  if (limits.failures) {
    try {
      account = accountOf(credentials, provider.credentials, limits.account);
    } catch (cause) {
      ctx.config.logger.error(new AuthError("rateLimit.credentials.account threw", { cause }));
    }
  }
  // A browser that signed in to this account before: its failures are its own (see device.ts).
  const device = account !== "" ? deviceOf(ctx) : null;
  const known = device && (await holdsAccount(ctx.config.secrets, device, account)) ? device : null;
  const found = known ? null : clientIp(ctx);
  const ip = found instanceof Promise ? await found : found;
  const bucket = ip ? bucketOf(ip) : null;
  // Nor does the per-client limit hold such a browser back: strangers at its address cannot
  // spend it, and its own backoff limits its guesses on this one account.
  const perClient = bucket ? limits.perClient : null;
  const rule =
    limits.failures && (known || bucket ? limits.failures : unknownClientBackoff(limits.failures));
  // Neither an account nor an address: nothing to count by that would not be one global bucket.
  const counted = rule && (account !== "" || bucket) ? rule : null;
  const store = rateLimitsOf(ctx.config).store;
  // The memory store answers without promises: nothing to wait for on the default path.
  const sync = syncStore(store);
  // A shared store counts the client under a hashed key; the memory store by the address itself.
  const clientMade =
    perClient && bucket && !sync ? counterOf(ctx, sync, PER_CLIENT, [bucket]) : null;
  const client = clientMade instanceof Promise ? await clientMade : clientMade;
  const failMade = !counted
    ? null
    : known
      ? counterOf(ctx, sync, DEVICE, [account, known.id])
      : counterOf(ctx, sync, FAILURES, [account, bucket ?? "unknown client"]);
  const failures = failMade instanceof Promise ? await failMade : failMade;

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
    storeFailed(ctx, cause);
  }
  if (bucket && perClient && count && count.count > perClient.max) {
    const what = "Too many credentials attempts from one client";
    refuse(ctx, what, PER_CLIENT, [bucket], (count.resetAt - Date.now()) / 1000);
  }
  if (!failures || !counted) return unlimited;
  if (broken) return attemptOf(ctx, unlimited, account, device);
  const memoryMs = streakSeconds(counted) * 1000;
  const what = known
    ? "Too many failed sign-ins for one account from one device"
    : "Too many failed sign-ins for one account from one client";
  if (streakCount > 0) {
    const wait = backoffSeconds(streakCount, counted);
    // Every failure moves the streak's end to `memoryMs` after it: the last failure is at resetAt - memoryMs.
    const until = streakReset - memoryMs + wait * 1000;
    const now = Date.now();
    if (wait > 0 && until > now)
      refuse(ctx, what, failures.limit, failures.parts, (until - now) / 1000);
  }
  // The account-wide streak of unknown clients is everyone's: one user's success must not hand
  // the strangers failing beside them a fresh set of free attempts. It ends after its quiet time.
  const forget = known !== null || bucket !== null;
  const streak: Streak = {
    counter: failures,
    rule: counted,
    what,
    count: streakCount,
    memoryMs,
    forget,
  };
  if (sync) return attemptOf(ctx, inFlight(ctx, sync, streak), account, device);
  // The attempt counts as a failure before `authorize` runs (a success takes it back), so that a
  // burst of simultaneous attempts cannot all pass the check above before any of them is counted:
  // an attempt that finds more attempts counted than the streak it checked had one in flight
  // beside it, and waits as if that one had failed just now. In a shared store this is how
  // instances see each other's attempts in flight.
  let mine: Readonly<RateLimitCount> | null = null;
  try {
    mine = await store.hit(failures.key, memoryMs, { extend: true });
  } catch (cause) {
    storeFailed(ctx, cause);
  }
  if (mine && mine.count > streakCount + 1) {
    const wait = backoffSeconds(mine.count - 1, counted);
    if (wait > 0) refuse(ctx, what, failures.limit, failures.parts, wait);
  }
  const key = failures.key;
  // A shared streak is taken back only when this attempt's count was its only one (also when the
  // streak it read ended in between: the count then started a new streak of its own).
  const takeBack = forget || mine?.count === 1;
  const outcome: Outcome = {
    failed: () => done,
    succeeded: () => (takeBack ? store.reset(key).catch((cause) => storeFailed(ctx, cause)) : done),
  };
  return attemptOf(ctx, outcome, account, device);
}
