/**
 * The tries of second-factor codes, counted in the rate-limit store (atomic `hit`) before each
 * code is checked, so a burst of guesses gets no more checks than the rule allows:
 *
 * - per challenge: `maxAttempts` wrong or right tries (default 5), then the challenge ends and the
 *   first factor is asked again (whose own limits apply);
 * - per user and client address: 3 × `maxAttempts` in 15 minutes, over every challenge and
 *   account route. Not per user alone: someone who knows the password, trying codes from their
 *   own network, must not lock the user out of theirs; and not at all where the client address is
 *   unknown (no `trustedProxies` behind a proxy), where every client would share one count;
 * - per user, on the signed-in routes that take a code (confirm, disable, new backup codes):
 *   3 × `maxAttempts` in 15 minutes whatever the address, so that a stolen session cannot guess
 *   its way to turning two-factor off. The most it can do is keep the owner from managing two-factor
 *   for those minutes; signing in is not counted there.
 *
 * A store that fails counts the try as over the limit: a code is refused rather than checked
 * without a count.
 */
import { bucketOf, clientIp } from "../../client-address.js";
import type { Context } from "../../context.js";
import { limitKey } from "../rate-limit/keys.js";
import { rateLimitsOf } from "../rate-limit/state.js";

export const DEFAULT_MAX_ATTEMPTS = 5;
const CHALLENGE_WINDOW_MS = 10 * 60 * 1000;
const USER_WINDOW_MS = 15 * 60 * 1000;

async function count(ctx: Context, limit: string, parts: string[], windowMs: number) {
  const key = await limitKey(ctx.config.secrets[0] as string, limit, parts);
  try {
    return await rateLimitsOf(ctx.config).store.hit(key, windowMs);
  } catch (error) {
    ctx.config.logger.error(error as Error);
    return null;
  }
}

/** Counts one try of a challenge's codes: false once it is past `max`. */
export async function countChallengeTry(
  ctx: Context,
  challengeId: string,
  max: number,
): Promise<boolean> {
  const counted = await count(ctx, "twoFactor.challenge", [challengeId], CHALLENGE_WINDOW_MS);
  return counted !== null && counted.count <= max;
}

/**
 * Counts one try of a user's codes from this client: the seconds to wait when it is past the
 * limit, else 0.
 */
export async function countUserTry(ctx: Context, userId: string, max: number): Promise<number> {
  const found = clientIp(ctx);
  const ip = found instanceof Promise ? await found : found;
  if (!ip) return 0;
  const counted = await count(ctx, "twoFactor.user", [userId, bucketOf(ip)], USER_WINDOW_MS);
  if (counted === null) return USER_WINDOW_MS / 1000;
  if (counted.count <= max * 3) return 0;
  return Math.max(1, Math.ceil((counted.resetAt - Date.now()) / 1000));
}

/**
 * Counts one try of a code on a signed-in route (confirm, disable, new backup codes), per user
 * whatever the address: the seconds to wait when it is past the limit, else 0.
 */
export async function countAccountTry(ctx: Context, userId: string, max: number): Promise<number> {
  const counted = await count(ctx, "twoFactor.account", [userId], USER_WINDOW_MS);
  if (counted === null) return USER_WINDOW_MS / 1000;
  if (counted.count <= max * 3) return 0;
  return Math.max(1, Math.ceil((counted.resetAt - Date.now()) / 1000));
}
