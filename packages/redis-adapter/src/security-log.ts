/**
 * The security activity log on Redis: one sorted set of events per user (scored by time, so a
 * page is one `ZREVRANGEBYSCORE`) and one sorted set of users by their latest event, for pruning.
 */
import type { SecurityEvent, SecurityEventStore, SecurityEventType } from "@gatehousejs/core/types";
import { commandsOf, type RedisClientLike, script, texts } from "./client.js";
import { segment } from "./keys.js";

/** Options of {@link RedisSecurityEventStore}. */
export interface RedisSecurityEventStoreOptions {
  /** Prefix of every key. Default `"gatehouse:"` (the adapter's); keys are `<prefix>security:…`. */
  prefix?: string;
}

/** Adds the event to the user's set and moves the user's latest time forward, atomically. */
const RECORD = script(`
redis.call("ZADD", KEYS[1], ARGV[1], ARGV[2])
local latest = redis.call("ZSCORE", KEYS[2], ARGV[3])
if not latest or tonumber(latest) < tonumber(ARGV[1]) then
  redis.call("ZADD", KEYS[2], ARGV[1], ARGV[3])
end
return 1
`);

/** Drops a user's events when the user's latest event is still older than the cutoff. */
const DROP_STALE = script(`
local latest = redis.call("ZSCORE", KEYS[2], ARGV[1])
if latest and tonumber(latest) < tonumber(ARGV[2]) then
  redis.call("DEL", KEYS[1])
  redis.call("ZREM", KEYS[2], ARGV[1])
end
return 1
`);

const PAGE = 500;

type Stored = Omit<SecurityEvent, "at"> & { at: number };

function toEvent(member: string): SecurityEvent {
  const stored = JSON.parse(member) as Stored;
  return {
    id: String(stored.id),
    userId: String(stored.userId),
    type: stored.type as SecurityEventType,
    at: new Date(stored.at),
    provider: stored.provider ?? null,
    providerType: stored.providerType ?? null,
    newClient: typeof stored.newClient === "boolean" ? stored.newClient : null,
    client: stored.client ?? null,
    ip: stored.ip ?? null,
    sessionId: stored.sessionId ?? null,
    reason: stored.reason ?? null,
  };
}

/**
 * A {@link SecurityEventStore} on Redis (an ioredis or node-redis client), for
 * `securityLog.store`. `prune` walks the users with events (a few commands per 500 users).
 *
 * @example
 * ```ts
 * import { RedisSecurityEventStore } from "@gatehousejs/redis-adapter";
 * import { Redis } from "ioredis";
 *
 * const securityLog = { store: RedisSecurityEventStore(new Redis()), retentionDays: 90 };
 * ```
 */
export function RedisSecurityEventStore(
  client: RedisClientLike,
  options: RedisSecurityEventStoreOptions = {},
): SecurityEventStore {
  const prefix = options.prefix ?? "gatehouse:";
  if (typeof prefix !== "string") {
    throw new TypeError("RedisSecurityEventStore: `prefix` must be a string");
  }
  const redis = commandsOf(client);
  const users = `${prefix}security:users`;
  const eventsOf = (userId: string) => `${prefix}security:user:${segment(userId)}`;
  return {
    async record(event) {
      const at = event.at.getTime();
      const member = JSON.stringify({
        id: event.id,
        userId: event.userId,
        type: event.type,
        at,
        provider: event.provider ?? null,
        providerType: event.providerType ?? null,
        newClient: event.newClient ?? null,
        client: event.client ?? null,
        ip: event.ip ?? null,
        sessionId: event.sessionId ?? null,
        reason: event.reason ?? null,
      } satisfies Stored);
      await redis.run(RECORD, [eventsOf(event.userId), users], [at, member, event.userId]);
    },
    async list(userId, { limit, before }) {
      const max = before ? `(${before.getTime()}` : "+inf";
      const reply = await redis.send([
        "ZREVRANGEBYSCORE",
        eventsOf(userId),
        max,
        "-inf",
        "LIMIT",
        0,
        limit,
      ]);
      return texts(reply).map(toEvent);
    },
    async prune(olderThan) {
      const ms = olderThan.getTime();
      const cutoff = `(${ms}`;
      // Users whose latest event is older than the cutoff: their whole set goes (checked again
      // inside the script, so an event recorded meanwhile stays).
      for (;;) {
        const stale = texts(
          await redis.send(["ZRANGEBYSCORE", users, "-inf", cutoff, "LIMIT", 0, PAGE]),
        );
        await Promise.all(
          stale.map((id) => redis.run(DROP_STALE, [eventsOf(id), users], [id, ms])),
        );
        if (stale.length < PAGE) break;
      }
      // The others keep their recent events only.
      for (let start = 0; ; start += PAGE) {
        const active = texts(await redis.send(["ZRANGE", users, start, start + PAGE - 1]));
        await Promise.all(
          active.map((id) => redis.send(["ZREMRANGEBYSCORE", eventsOf(id), "-inf", cutoff])),
        );
        if (active.length < PAGE) break;
      }
    },
  };
}
