/**
 * Rate limits of sign-in: per client address for every sign-in action, per address for sign-in
 * emails, and an exponential backoff of failed credentials per account and client address, or per
 * account and device for a browser that signed in to the account before (attempt.ts, device.ts).
 * Over a limit, an action throws `RateLimited`; `Auth()` answers it.
 *
 * A request whose client address is unknown (no `clientAddress` hook, no `trustedProxies`) skips
 * the per-client limits: counting every unknown client in one bucket would let anyone lock
 * everyone out. Its failed credentials are counted per account alone, under a generous rule
 * ({@link unknownClientBackoff}).
 *
 * A store that fails lets the request through (one error line): a broken Redis must not stop every
 * sign-in.
 */
import { bucketOf, clientIp } from "../../client-address.js";
import type { Context } from "../../context.js";
import { counterOf, refuse, storeFailed } from "./common.js";
import { syncStore } from "./memory.js";
import type { RateLimitCount, RateLimitRule } from "./options.js";
import { rateLimitsOf } from "./state.js";

export { type CredentialsAttempt, checkCredentialsAttempt } from "./attempt.js";
export { backoffSeconds, streakSeconds, unknownClientBackoff } from "./common.js";

/** An action with a per-client limit. */
export type LimitedAction = "credentials" | "email" | "webauthn" | "oauth";

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
  const store = rateLimitsOf(ctx.config).store;
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
  const rule = rateLimitsOf(ctx.config).limits[action].perClient;
  if (!rule) return;
  const found = clientIp(ctx);
  const ip = found instanceof Promise ? await found : found;
  if (!ip) return;
  const what = `Too many ${action} requests from one client`;
  const limit = `${action}.perClient`;
  const sync = syncStore(rateLimitsOf(ctx.config).store);
  if (!sync) return consume(ctx, limit, rule, [bucketOf(ip)], what);
  const count = sync.hitAddress(limit, ip, rule.windowSeconds * 1000);
  if (count.count > rule.max) {
    refuse(ctx, what, limit, [bucketOf(ip)], (count.resetAt - Date.now()) / 1000);
  }
}

/** The per-address limit of sign-in emails; `identifier` is the normalised address. */
export async function limitEmail(ctx: Context, identifier: string): Promise<void> {
  const rule = rateLimitsOf(ctx.config).limits.email.perAddress;
  if (!rule) return;
  const what = "Too many sign-in emails to one address";
  await consume(ctx, "email.perAddress", rule, [identifier], what);
}
