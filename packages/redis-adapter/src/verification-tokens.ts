/**
 * The verification-token methods. A token is one key holding its JSON, expiring at `expires`;
 * the tries of a sign-in code are a counter key beside it, expiring with it.
 */
import type { VerificationToken } from "@gatehousejs/core/adapters";
import { type Commands, script, text } from "./client.js";
import type { KeyLayout } from "./keys.js";
import { decode, decodeOrNull, encode, expiryOf } from "./serialize.js";

type TokenKey = Pick<VerificationToken, "identifier" | "token">;

/** KEYS: token, tries. Returns the token's JSON or nil, and deletes both keys. */
const USE_TOKEN = script(`
local row = redis.call('GETDEL', KEYS[1])
if row then redis.call('DEL', KEYS[2]) end
return row
`);

/**
 * KEYS: token, tries. ARGV: max. Returns the tries with this one, or nil (no token, or `max`
 * tries already): the check and the increment are one atomic step.
 */
const COUNT_TRY = script(`
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -2 then return nil end
local tries = tonumber(redis.call('GET', KEYS[2]) or '0')
if tries >= tonumber(ARGV[1]) then return nil end
tries = redis.call('INCR', KEYS[2])
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return tries
`);

/** The verification-token methods of {@link RedisAdapter}. */
export interface RedisVerificationTokenMethods {
  /** The token key expires at `expires`. Rejects when the same token already exists. */
  createVerificationToken(verificationToken: VerificationToken): Promise<VerificationToken>;
  /** `GETDEL` in a script: among concurrent calls for one token, exactly one gets it. */
  useVerificationToken(key: TokenKey): Promise<VerificationToken | null>;
  /**
   * One script: reads the tries counter beside the token, and increments it when the token
   * exists and has had fewer than `max` tries. The counter expires with the token.
   */
  countVerificationTokenTry(key: TokenKey, max: number): Promise<number | null>;
}

/** The methods over `redis`, with the keys of `key`. */
export function verificationTokenMethods(
  redis: Commands,
  key: KeyLayout,
): RedisVerificationTokenMethods {
  const keys = ({ identifier, token }: TokenKey) => [
    key.verificationToken(identifier, token),
    key.verificationTries(identifier, token),
  ];
  return {
    async createVerificationToken(verificationToken) {
      const expires = expiryOf(verificationToken.expires, "a verification token");
      const json = encode(verificationToken);
      const k = key.verificationToken(verificationToken.identifier, verificationToken.token);
      const reply = await redis.send(["SET", k, json, "NX", "PXAT", expires]);
      if (text(reply) === null) {
        throw new Error("RedisAdapter: this verification token already exists");
      }
      return decode(json);
    },
    async useVerificationToken(token) {
      return decodeOrNull(text(await redis.run(USE_TOKEN, keys(token), [])));
    },
    async countVerificationTokenTry(token, max) {
      const reply = await redis.run(COUNT_TRY, keys(token), [max]);
      // Over RESP3 a script's nil may arrive as `false`; a count is always an integer.
      return typeof reply === "number" ? reply : null;
    },
  };
}
