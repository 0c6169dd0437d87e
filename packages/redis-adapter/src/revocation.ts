/**
 * The revocation store for JWT sessions on Redis. The check is one `MGET` of two keys; every
 * entry carries a TTL at the expiry of the sessions it concerns, so Redis forgets it by itself.
 *
 * Keys, under the prefix (default `gatehouse:`), with variable segments escaped as the adapter's:
 * - `revoked:<userId>:<sessionId>`: a revoked session (value `1`);
 * - `epoch:<userId>`: `<at> <except>`, the user's revocation epoch and the session it spared;
 * - `jwt-sessions:<userId>`: a hash, session id → the recorded session as JSON;
 * - `jwt-sessions:<userId>:expiry`: a sorted set, session id → expiry (ms), to drop expired
 *   records lazily.
 */
import type { RevocationSessionRecord, RevocationStore } from "@gatehousejs/core/types";
import { commandsOf, type RedisClientLike, script, text, texts } from "./client.js";
import { LUA_KEYS, segment } from "./keys.js";
import { decode, encode } from "./serialize.js";

/** Options of {@link RedisRevocationStore}. */
export interface RedisRevocationStoreOptions {
  /** Prefix of every key. Default `"gatehouse:"` (the adapter's keys do not collide with these). */
  prefix?: string;
}

const PRELUDE = `${LUA_KEYS}
local function ms(value) return string.format('%.0f', value) end
local function nowMs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
-- Sets a key's expiry to the later of its current one and ARGV-given 'at' (ms).
local function expireNoEarlier(key, at)
  local ttl = redis.call('PTTL', key)
  if ttl > 0 then at = math.max(at, nowMs() + ttl) end
  redis.call('PEXPIREAT', key, ms(at))
end
-- Drops expired records of a user, then expires both keys with the last record.
local function tidy(records, expiry)
  local gone = redis.call('ZRANGEBYSCORE', expiry, '-inf', ms(nowMs()))
  if #gone > 0 then
    redis.call('HDEL', records, unpack(gone))
    redis.call('ZREMRANGEBYSCORE', expiry, '-inf', ms(nowMs()))
  end
  local last = redis.call('ZRANGE', expiry, -1, -1, 'WITHSCORES')
  if last[2] then
    redis.call('PEXPIREAT', expiry, ms(tonumber(last[2])))
    redis.call('PEXPIREAT', records, ms(tonumber(last[2])))
  end
end
`;

/** KEYS: revoked key, records hash, expiry set. ARGV: prefix, expires (ms), session id. */
const REVOKE_SESSION = script(`${PRELUDE}
redis.call('SET', KEYS[1], '1', 'KEEPTTL')
expireNoEarlier(KEYS[1], tonumber(ARGV[2]))
redis.call('HDEL', KEYS[2], ARGV[3])
redis.call('ZREM', KEYS[3], ARGV[3])
tidy(KEYS[2], KEYS[3])
return 'ok'
`);

/**
 * KEYS: epoch key, records hash, expiry set. ARGV: prefix, at (s), except ('' for none),
 * expires (ms). The epoch only moves forward; the exception is the latest revocation's.
 */
const REVOKE_USER = script(`${PRELUDE}
local at = tonumber(ARGV[2])
local previous = redis.call('GET', KEYS[1])
if previous then
  local before = tonumber(string.match(previous, '^(%d+)'))
  if before and before > at then at = before end
end
redis.call('SET', KEYS[1], ms(at) .. ' ' .. ARGV[3], 'KEEPTTL')
expireNoEarlier(KEYS[1], tonumber(ARGV[4]))
for _, id in ipairs(redis.call('HKEYS', KEYS[2])) do
  if id ~= ARGV[3] then
    redis.call('HDEL', KEYS[2], id)
    redis.call('ZREM', KEYS[3], id)
  end
end
tidy(KEYS[2], KEYS[3])
return 'ok'
`);

/**
 * KEYS: records hash, expiry set. ARGV: prefix, session id, record JSON, expires (ms). Fields
 * absent from the JSON (left undefined) keep their recorded value.
 */
const RECORD_SESSION = script(`${PRELUDE}
local json = ARGV[3]
local previous = redis.call('HGET', KEYS[1], ARGV[2])
if previous then
  local merged = cjson.decode(previous)
  for field, value in pairs(cjson.decode(json)) do merged[field] = value end
  json = cjson.encode(merged)
end
redis.call('HSET', KEYS[1], ARGV[2], json)
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[2])
tidy(KEYS[1], KEYS[2])
return 'ok'
`);

/**
 * KEYS: records hash, expiry set, epoch key. ARGV: prefix, revoked-key prefix for the user.
 * Returns { epoch or '', id, json, id, json, … } for the live records not revoked by id.
 */
const LIST_SESSIONS = script(`${PRELUDE}
tidy(KEYS[1], KEYS[2])
local out = { redis.call('GET', KEYS[3]) or '' }
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  if redis.call('EXISTS', ARGV[2] .. seg(all[i])) == 0 then
    out[#out + 1] = all[i]
    out[#out + 1] = all[i + 1]
  end
end
return out
`);

/** The epoch value `"<at> <except>"` parsed; `undefined` for none. */
function parseEpoch(value: string | null): { at: number; except: string } | undefined {
  if (!value) return undefined;
  const space = value.indexOf(" ");
  const at = Number(space === -1 ? value : value.slice(0, space));
  if (!Number.isFinite(at)) return undefined;
  return { at, except: space === -1 ? "" : value.slice(space + 1) };
}

/** The session id core gives a JWT without a `sid` (one issued by Auth.js or before sids). */
const LEGACY_SESSION_ID = "legacy";

/**
 * Whether the epoch's exception is this session. Every token without a sid shares the id
 * `legacy` (an epoch written by an older Gatehouse may name it), so it is never the exception.
 * An epoch without one is stored with an empty exception: the empty id is never spared either.
 */
function spares(epoch: { except: string }, sessionId: string): boolean {
  return epoch.except === sessionId && sessionId !== LEGACY_SESSION_ID && sessionId !== "";
}

function expiryMs(expires: Date, what: string): number {
  const ms = expires instanceof Date ? expires.getTime() : Number.NaN;
  if (!Number.isFinite(ms)) throw new TypeError(`RedisRevocationStore: ${what} needs a valid Date`);
  return ms;
}

/**
 * A {@link RevocationStore} on Redis (6.2 or later), through an ioredis or a connected node-redis
 * client. `check` is one `MGET` of the user's epoch and the session's revoked key: one round
 * trip, no script. Revocations, records and their indexes carry TTLs at the expiry of the
 * sessions they concern, so nothing outlives them; expired records are also dropped lazily on
 * each write. On a Redis Cluster, give a prefix with a hash tag (`{gatehouse}:`) so that one
 * user's keys share a slot.
 *
 * @example
 * ```ts
 * import type { AuthConfig } from "@gatehousejs/core";
 * import { RedisRevocationStore } from "@gatehousejs/redis-adapter";
 * import { Redis } from "ioredis";
 *
 * const store = RedisRevocationStore(new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379"));
 * const config = {
 *   secret: process.env.AUTH_SECRET,
 *   providers: [],
 *   session: { strategy: "jwt", revocation: { store } },
 * } satisfies AuthConfig;
 * ```
 */
export function RedisRevocationStore(
  client: RedisClientLike,
  options: RedisRevocationStoreOptions = {},
): Required<RevocationStore> {
  const prefix = options.prefix ?? "gatehouse:";
  if (typeof prefix !== "string") {
    throw new TypeError("RedisRevocationStore: `prefix` must be a string");
  }
  const redis = commandsOf(client);
  const revokedPrefix = (userId: string) => `${prefix}revoked:${segment(userId)}:`;
  const revokedKey = (userId: string, sessionId: string) =>
    revokedPrefix(userId) + segment(sessionId);
  const epochKey = (userId: string) => `${prefix}epoch:${segment(userId)}`;
  const recordsKey = (userId: string) => `${prefix}jwt-sessions:${segment(userId)}`;
  const expiryKey = (userId: string) => `${recordsKey(userId)}:expiry`;

  return {
    async check({ userId, sessionId, issuedAt }) {
      const reply = await redis.send(["MGET", epochKey(userId), revokedKey(userId, sessionId)]);
      if (!Array.isArray(reply)) throw new Error("RedisRevocationStore: MGET gave no array");
      if (text(reply[1]) !== null) return true;
      const epoch = parseEpoch(text(reply[0]));
      return epoch !== undefined && epoch.at >= issuedAt && !spares(epoch, sessionId);
    },
    async revokeSession({ userId, sessionId, expires }) {
      const keys = [revokedKey(userId, sessionId), recordsKey(userId), expiryKey(userId)];
      await redis.run(REVOKE_SESSION, keys, [
        prefix,
        expiryMs(expires, "revokeSession"),
        sessionId,
      ]);
    },
    async revokeUser({ userId, at, except, expires }) {
      const keys = [epochKey(userId), recordsKey(userId), expiryKey(userId)];
      const ms = expiryMs(expires, "revokeUser");
      await redis.run(REVOKE_USER, keys, [prefix, Math.floor(at), except ?? "", ms]);
    },
    async recordSession(record) {
      const ms = expiryMs(record.expires, "recordSession");
      if (ms <= Date.now()) return;
      const keys = [recordsKey(record.userId), expiryKey(record.userId)];
      await redis.run(RECORD_SESSION, keys, [prefix, record.sessionId, encode(record), ms]);
    },
    async listSessions(userId) {
      const keys = [recordsKey(userId), expiryKey(userId), epochKey(userId)];
      const reply = texts(await redis.run(LIST_SESSIONS, keys, [prefix, revokedPrefix(userId)]));
      const epoch = parseEpoch(reply[0] ?? null);
      const now = Date.now();
      const live: RevocationSessionRecord[] = [];
      for (let i = 1; i + 1 < reply.length; i += 2) {
        const record = decode<RevocationSessionRecord>(String(reply[i + 1]));
        if (!(record.expires instanceof Date) || record.expires.getTime() <= now) continue;
        // As `check` would answer for a token issued when the session was created.
        const issuedAt = Math.floor((record.createdAt?.getTime() ?? 0) / 1000);
        if (epoch && epoch.at >= issuedAt && !spares(epoch, record.sessionId)) continue;
        live.push(record);
      }
      return live.sort(
        (a, b) => (a.createdAt?.getTime() ?? 0) - (b.createdAt?.getTime() ?? 0) || 0,
      );
    },
  };
}
