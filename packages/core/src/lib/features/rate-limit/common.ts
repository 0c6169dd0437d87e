/**
 * What the limits share: counters and their keys, the refusal, and the arithmetic of the failure
 * backoff.
 */
import type { Context } from "../../context.js";
import { AdapterError, RateLimited } from "../../errors.js";
import { limitKey, loggableKey, plainKey } from "./keys.js";
import type { SyncRateLimitStore } from "./memory.js";
import type { BackoffRule } from "./options.js";

/** Logs a failing store; the request goes on (a broken Redis must not stop every sign-in). */
export function storeFailed(ctx: Context, cause: unknown): void {
  ctx.config.logger.error(new AdapterError("The rate-limit store failed", { cause }));
}

/**
 * A counter: its limit (the memory store's partition), what it counts, and its key in the store.
 */
export interface Counter {
  limit: string;
  parts: string[];
  key: string;
}

/**
 * The counter of a limit over some parts: a plain key in this process's memory store (no hash per
 * attempt), a hashed one in every other store. A promise only where hashing needs WebCrypto.
 */
export function counterOf(
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
export function refuse(
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
