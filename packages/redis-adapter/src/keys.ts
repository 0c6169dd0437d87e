/**
 * The key layout. Every variable part of a key is escaped so that no two rows can share a key:
 * `%` becomes `%25` and `:` becomes `%3A`, so a user id `a:b` cannot collide with the index key
 * of another user, and a provider `a:b` with account `c` cannot collide with provider `a` and
 * account `b:c`. Ordinary values (UUIDs, emails, hex tokens) are unchanged.
 *
 * The Lua scripts rebuild some keys from stored ids; `LUA_KEYS` below is the same layout in Lua
 * and must change together with this file.
 */

/** Escapes one variable key segment. */
export function segment(value: string): string {
  return value.replaceAll("%", "%25").replaceAll(":", "%3A");
}

/** Builds every key of the layout under one prefix. */
export function keyLayout(prefix: string) {
  const user = (id: string) => `${prefix}user:${segment(id)}`;
  return {
    user,
    userByEmail: (email: string) => `${prefix}user:email:${segment(email)}`,
    userAccounts: (id: string) => `${user(id)}:accounts`,
    userSessions: (id: string) => `${user(id)}:sessions`,
    userAuthenticators: (id: string) => `${user(id)}:authenticators`,
    account: (provider: string, providerAccountId: string) =>
      `${prefix}account:${segment(provider)}:${segment(providerAccountId)}`,
    accountLock: (provider: string, providerAccountId: string) =>
      `${prefix}lock:account:${segment(provider)}:${segment(providerAccountId)}`,
    session: (sessionToken: string) => `${prefix}session:${segment(sessionToken)}`,
    verificationToken: (identifier: string, token: string) =>
      `${prefix}verification:${segment(identifier)}:${segment(token)}`,
    verificationTries: (identifier: string, token: string) =>
      `${prefix}verification-tries:${segment(identifier)}:${segment(token)}`,
    authenticator: (credentialID: string) => `${prefix}authenticator:${segment(credentialID)}`,
  };
}

/** The key builders for one prefix. */
export type KeyLayout = ReturnType<typeof keyLayout>;

/**
 * The same layout for the scripts, which receive the prefix as `ARGV[1]`. `string.gsub` returns
 * two values; the parentheses keep only the string.
 */
export const LUA_KEYS = `
local prefix = ARGV[1]
local function seg(value)
  local escaped = string.gsub(value, '%%', '%%25')
  return (string.gsub(escaped, ':', '%%3A'))
end
local function userKey(id) return prefix .. 'user:' .. seg(id) end
local function emailKey(email) return prefix .. 'user:email:' .. seg(email) end
`;
