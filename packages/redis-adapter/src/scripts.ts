/**
 * The Lua scripts. Redis runs a script as one atomic step, like MULTI/EXEC, but a script can
 * also decide: check that a key is absent, then write several keys, with no other client in
 * between. Every script receives the key prefix as `ARGV[1]`; return values are status strings
 * (`'ok'`, `'taken'`, ...) or stored rows.
 *
 * Scripts that follow a stored id (a session's `userId` to its user) build that key inside the
 * script, so they work on a single Redis server, or on a cluster only when every key hashes to
 * one slot (a prefix with a hash tag, such as `{gatehouse}:`).
 */
import { script } from "./client.js";
import { LUA_KEYS } from "./keys.js";

const PRELUDE = `${LUA_KEYS}
local function ownerOf(row) return cjson.decode(row).userId end
local function ms(value) return string.format('%.0f', value) end
local function nowMs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
-- A user's session index: drops sessions that expired, and expires with the user's last session.
local function tidySessions(index)
  redis.call('ZREMRANGEBYSCORE', index, '-inf', ms(nowMs()))
  local last = redis.call('ZRANGE', index, -1, -1, 'WITHSCORES')
  if last[2] then redis.call('PEXPIREAT', index, ms(tonumber(last[2]))) end
end
`;

const lua = (body: string) => script(PRELUDE + body);

/** KEYS: email index. Returns the user or nil. */
export const GET_USER_BY_EMAIL = lua(`
local id = redis.call('GET', KEYS[1])
if not id then return nil end
local user = redis.call('GET', userKey(id))
if not user then return nil end
return user
`);

/** KEYS: account. Returns the account's user or nil. */
export const GET_USER_BY_ACCOUNT = lua(`
local account = redis.call('GET', KEYS[1])
if not account then return nil end
local user = redis.call('GET', userKey(ownerOf(account)))
if not user then return nil end
return user
`);

/** KEYS: session. Returns { session, user } or nil: one round trip. */
export const GET_SESSION_AND_USER = lua(`
local session = redis.call('GET', KEYS[1])
if not session then return nil end
local user = redis.call('GET', userKey(ownerOf(session)))
if not user then return nil end
return { session, user }
`);

/**
 * KEYS: user, email index. ARGV: prefix, user JSON, id, "1" to index the email.
 * An index entry whose user is gone does not count as taken.
 */
export const CREATE_USER = lua(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 'id-taken' end
if ARGV[4] == '1' then
  local owner = redis.call('GET', KEYS[2])
  if owner and redis.call('EXISTS', userKey(owner)) == 1 then return 'email-taken' end
  redis.call('SET', KEYS[2], ARGV[3])
end
redis.call('SET', KEYS[1], ARGV[2])
return 'ok'
`);

/**
 * KEYS: user, old email index, new email index. ARGV: prefix, the JSON read before the merge,
 * the merged JSON, id, "1" if the old email is indexed, "1" if the new email is to be indexed.
 * Writes only if the user is unchanged since it was read ('conflict' otherwise).
 */
export const UPDATE_USER = lua(`
if redis.call('GET', KEYS[1]) ~= ARGV[2] then return 'conflict' end
if ARGV[6] == '1' then
  local owner = redis.call('GET', KEYS[3])
  if owner and owner ~= ARGV[4] and redis.call('EXISTS', userKey(owner)) == 1 then
    return 'email-taken'
  end
end
if ARGV[5] == '1' and KEYS[2] ~= KEYS[3] and redis.call('GET', KEYS[2]) == ARGV[4] then
  redis.call('DEL', KEYS[2])
end
if ARGV[6] == '1' then redis.call('SET', KEYS[3], ARGV[4]) end
redis.call('SET', KEYS[1], ARGV[3])
return 'ok'
`);

/**
 * KEYS: user, its accounts set, its sessions index, its authenticators set. ARGV: prefix, id.
 * Deletes the user, its email index entry and every row it owns. Returns the user or nil.
 */
export const DELETE_USER = lua(`
local user = redis.call('GET', KEYS[1])
if user then
  local email = cjson.decode(user).email
  if type(email) == 'string' and email ~= '' and redis.call('GET', emailKey(email)) == ARGV[2] then
    redis.call('DEL', emailKey(email))
  end
end
local function deleteOwned(index, members)
  for _, key in ipairs(members) do
    local row = redis.call('GET', key)
    if row and ownerOf(row) == ARGV[2] then redis.call('DEL', key) end
  end
  redis.call('DEL', index)
end
deleteOwned(KEYS[2], redis.call('SMEMBERS', KEYS[2]))
deleteOwned(KEYS[3], redis.call('ZRANGE', KEYS[3], 0, -1))
deleteOwned(KEYS[4], redis.call('SMEMBERS', KEYS[4]))
redis.call('DEL', KEYS[1])
if not user then return nil end
return user
`);

/**
 * KEYS: row, owning user, the user's set of such rows. ARGV: prefix, row JSON.
 * For accounts and authenticators: the user must exist and the key must be free.
 */
export const CREATE_OWNED = lua(`
if redis.call('EXISTS', KEYS[2]) == 0 then return 'no-user' end
if not redis.call('SET', KEYS[1], ARGV[2], 'NX') then return 'taken' end
redis.call('SADD', KEYS[3], KEYS[1])
return 'ok'
`);

/** KEYS: account. Deletes it and its entry in the user's set. Returns the account or nil. */
export const UNLINK_ACCOUNT = lua(`
local account = redis.call('GET', KEYS[1])
if not account then return nil end
redis.call('DEL', KEYS[1])
redis.call('SREM', userKey(ownerOf(account)) .. ':accounts', KEYS[1])
return account
`);

/**
 * KEYS: authenticator. Deletes it and its entry in its user's set of authenticators. Returns the
 * authenticator or nil.
 */
export const DELETE_AUTHENTICATOR = lua(`
local authenticator = redis.call('GETDEL', KEYS[1])
if not authenticator then return nil end
redis.call('SREM', userKey(ownerOf(authenticator)) .. ':authenticators', KEYS[1])
return authenticator
`);

/** KEYS: session, user, the user's sessions index. ARGV: prefix, session JSON, expires (ms). */
export const CREATE_SESSION = lua(`
if redis.call('EXISTS', KEYS[2]) == 0 then return 'no-user' end
if not redis.call('SET', KEYS[1], ARGV[2], 'NX', 'PXAT', ARGV[3]) then return 'taken' end
redis.call('ZADD', KEYS[3], ARGV[3], KEYS[1])
tidySessions(KEYS[3])
return 'ok'
`);

/**
 * KEYS: session, old user's sessions index, new user's sessions index, new user.
 * ARGV: prefix, the JSON read before the merge, the merged JSON, expires (ms).
 * Writes only if the session is unchanged since it was read ('conflict' otherwise), and moves
 * its TTL to the new `expires`.
 */
export const UPDATE_SESSION = lua(`
if redis.call('GET', KEYS[1]) ~= ARGV[2] then return 'conflict' end
if redis.call('EXISTS', KEYS[4]) == 0 then return 'no-user' end
redis.call('SET', KEYS[1], ARGV[3], 'PXAT', ARGV[4])
if KEYS[2] ~= KEYS[3] then
  redis.call('ZREM', KEYS[2], KEYS[1])
  tidySessions(KEYS[2])
end
redis.call('ZADD', KEYS[3], ARGV[4], KEYS[1])
tidySessions(KEYS[3])
return 'ok'
`);

/** KEYS: session. Deletes it and its index entry. Returns the session or nil. */
export const DELETE_SESSION = lua(`
local session = redis.call('GETDEL', KEYS[1])
if not session then return nil end
redis.call('ZREM', userKey(ownerOf(session)) .. ':sessions', KEYS[1])
return session
`);

/**
 * KEYS: the user's sessions index. ARGV: prefix, the user's id. Drops expired entries, then
 * returns the stored sessions of the index that still belong to the user.
 */
export const LIST_SESSIONS = lua(`
tidySessions(KEYS[1])
local rows = {}
for _, key in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local row = redis.call('GET', key)
  if row and ownerOf(row) == ARGV[2] then rows[#rows + 1] = row end
end
return rows
`);

/**
 * KEYS: the user's sessions index. ARGV: prefix, the user's id, the session key to keep ('' for
 * none). Deletes the user's other sessions and returns how many it deleted.
 */
export const DELETE_SESSIONS = lua(`
local deleted = 0
for _, key in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if key ~= ARGV[3] then
    local row = redis.call('GET', key)
    if row and ownerOf(row) == ARGV[2] then
      redis.call('DEL', key)
      deleted = deleted + 1
    end
    redis.call('ZREM', KEYS[1], key)
  end
end
tidySessions(KEYS[1])
return deleted
`);

/**
 * KEYS: a user's set of owned rows (accounts or authenticators). ARGV: prefix, the user's id.
 * Returns the stored rows of that set that still belong to the user.
 */
export const LIST_OWNED = lua(`
local rows = {}
for _, key in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local row = redis.call('GET', key)
  if row and ownerOf(row) == ARGV[2] then rows[#rows + 1] = row end
end
return rows
`);

/** KEYS: row. ARGV: prefix, the JSON read before the merge, the merged JSON. */
export const COMPARE_AND_SET = lua(`
if redis.call('GET', KEYS[1]) ~= ARGV[2] then return 'conflict' end
redis.call('SET', KEYS[1], ARGV[3], 'KEEPTTL')
return 'ok'
`);

/** KEYS: a lock. ARGV: prefix, the holder's token. Deletes the lock only while it is the holder's. */
export const RELEASE_LOCK = lua(`
if redis.call('GET', KEYS[1]) == ARGV[2] then redis.call('DEL', KEYS[1]) return 1 end
return 0
`);
