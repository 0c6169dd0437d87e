/**
 * The rate-limit counter store on Redis. One counter is one small hash, `<prefix>rate:<key>`,
 * holding the count (`c`) and the end of the window (`r`, ms since the epoch on the server's
 * clock); the key expires at that same moment, so an ended counter is gone from Redis by itself
 * and costs nothing to keep. A hit is one script: atomic, one round trip.
 */
import type { RateLimitCount, RateLimitStore } from "@gatehousejs/core/types";
import { commandsOf, type RedisClientLike, script } from "./client.js";

/** Options of {@link RedisRateLimitStore}. */
export interface RedisRateLimitStoreOptions {
  /**
   * Prefix of every key. Default `"gatehouse:"` (counters live under `<prefix>rate:`, which the
   * adapter's and the other stores' keys never use).
   */
  prefix?: string;
}

/**
 * KEYS: the counter. ARGV: window (ms), "1" to extend. Returns { count, resetAt (ms) }. The
 * window is measured on the server's clock (`TIME`), so every app instance agrees on it.
 */
const HIT = script(`
local function ms(value) return string.format('%.0f', value) end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local resetAt = tonumber(redis.call('HGET', KEYS[1], 'r'))
local count
if not resetAt or resetAt <= now then
  count = 1
  resetAt = now + window
  redis.call('HSET', KEYS[1], 'c', 1, 'r', ms(resetAt))
else
  count = redis.call('HINCRBY', KEYS[1], 'c', 1)
  if ARGV[2] ~= '1' then return { count, ms(resetAt) } end
  resetAt = now + window
  redis.call('HSET', KEYS[1], 'r', ms(resetAt))
end
redis.call('PEXPIREAT', KEYS[1], ms(resetAt))
return { count, ms(resetAt) }
`);

/** The whole milliseconds of a window, or a `TypeError` for a window that is not a duration. */
function windowOf(windowMs: number): number {
  if (typeof windowMs !== "number" || !Number.isFinite(windowMs) || windowMs <= 0) {
    throw new TypeError("RedisRateLimitStore: hit needs a positive, finite windowMs");
  }
  return Math.ceil(windowMs);
}

/** `{ count, resetAt }` from a two-element reply of integers or numeric strings. */
function countOf(reply: unknown): RateLimitCount | null {
  if (!Array.isArray(reply)) throw new Error("RedisRateLimitStore: expected an array reply");
  const [count, resetAt] = reply.map((item) =>
    item === null || item === undefined || item === false
      ? Number.NaN
      : Number(item instanceof Uint8Array ? Buffer.from(item).toString("utf8") : item),
  );
  if (!Number.isFinite(count) || !Number.isFinite(resetAt)) return null;
  return { count: count as number, resetAt: resetAt as number };
}

/**
 * A {@link RateLimitStore} on Redis (6.2 or later), through an ioredis or a connected node-redis
 * client, for `rateLimit.store`: every app instance on the same Redis shares one limit.
 *
 * - `hit` is one Lua script (`EVALSHA`): read, count and set the expiry in one atomic step, so
 *   1,000 simultaneous hits from any number of processes get the counts 1 to 1,000, each once.
 * - The window runs on the Redis server's clock; `resetAt` is that server time (the key expires
 *   at exactly `resetAt`), so every instance reports the same end for one counter. Keep app
 *   hosts in sync with NTP: a skewed host computes a `Retry-After` off by its skew, but the
 *   limit itself never moves.
 * - `peek` is one `HMGET`; `reset` is one `DEL`. Ended counters are expired keys: nothing to
 *   prune.
 * - Each call touches one key, so it works on a Redis Cluster with any prefix; a prefix without
 *   a hash tag spreads the counters over the cluster.
 *
 * @example
 * ```ts
 * import type { AuthConfig } from "@gatehousejs/core";
 * import { RedisRateLimitStore } from "@gatehousejs/redis-adapter";
 * import { Redis } from "ioredis";
 *
 * const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
 * const config = {
 *   secret: process.env.AUTH_SECRET,
 *   providers: [],
 *   rateLimit: { store: RedisRateLimitStore(redis) },
 * } satisfies AuthConfig;
 * ```
 */
export function RedisRateLimitStore(
  client: RedisClientLike,
  options: RedisRateLimitStoreOptions = {},
): RateLimitStore {
  const prefix = options.prefix ?? "gatehouse:";
  if (typeof prefix !== "string") {
    throw new TypeError("RedisRateLimitStore: `prefix` must be a string");
  }
  const redis = commandsOf(client);
  // Keys are opaque and used whole: `<prefix>rate:` is followed by nothing else.
  const counterKey = (key: string) => `${prefix}rate:${key}`;

  return {
    async hit(key, windowMs, hitOptions) {
      const window = windowOf(windowMs);
      const extend = hitOptions?.extend === true ? "1" : "0";
      const reply = await redis.run(HIT, [counterKey(key)], [window, extend]);
      const counter = countOf(reply);
      if (!counter) throw new Error("RedisRateLimitStore: the hit script gave no counter");
      return counter;
    },
    async peek(key) {
      return countOf(await redis.send(["HMGET", counterKey(key), "c", "r"]));
    },
    async reset(key) {
      await redis.send(["DEL", counterKey(key)]);
    },
  };
}
