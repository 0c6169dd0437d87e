/**
 * Backup codes: the way in when the authenticator is lost. Ten by default, each shown once at
 * creation, stored only as hashes, and each good for one sign-in.
 *
 * A code is 10 characters from a 31-letter alphabet without look-alikes (no 0/o, 1/i/l), shown as
 * two groups of five (`k7m2p-x9ad4`); what the user types is read in either case, with or without
 * the dash and spaces.
 *
 * Each code is stored as SHA-256 over a random salt of its own and the code, as `<salt>.<hash>`.
 * A slow hash exists to make guessing a *chosen* secret expensive; these codes are drawn at random
 * with about 49.5 bits each, so there is no likely guess to try first, and the salt makes every
 * stored code a search of its own (no table, no trying one guess against many users at once). A
 * code found that way, hours of a GPU's time for one code of one user, is still worth nothing
 * without that user's password. A slow hash would multiply that cost by a constant and every
 * backup-code check, which hashes once per stored code, by the same constant.
 */
import { randomHex, sha256Hex, timingSafeEqual } from "../../crypto/hash.js";

/** The characters of a backup code: digits and lower-case letters that cannot be misread. */
export const BACKUP_CODE_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz";
/** Characters in a backup code, without the dash. */
export const BACKUP_CODE_LENGTH = 10;
/** Codes in a new set, by default. */
export const DEFAULT_BACKUP_CODE_COUNT = 10;

// The largest multiple of the alphabet's size below 256: bytes at or above it are drawn again,
// so that every character is equally likely.
const unbiasedLimit = 256 - (256 % BACKUP_CODE_ALPHABET.length);

function randomCode(): string {
  let code = "";
  while (code.length < BACKUP_CODE_LENGTH) {
    for (const byte of crypto.getRandomValues(new Uint8Array(BACKUP_CODE_LENGTH * 2))) {
      if (byte >= unbiasedLimit) continue;
      code += BACKUP_CODE_ALPHABET.charAt(byte % BACKUP_CODE_ALPHABET.length);
      if (code.length === BACKUP_CODE_LENGTH) break;
    }
  }
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/**
 * A new set of `count` distinct backup codes, formatted for display (`xxxxx-xxxxx`). Show them
 * once; store {@link hashBackupCode} of each, never the codes.
 *
 * @example
 * ```ts
 * const codes = generateBackupCodes();
 * const hashes = await Promise.all(codes.map(hashBackupCode));
 * ```
 */
export function generateBackupCodes(count = DEFAULT_BACKUP_CODE_COUNT): string[] {
  if (!Number.isInteger(count) || count < 1 || count > 100) {
    throw new RangeError("backup code count must be between 1 and 100");
  }
  const codes = new Set<string>();
  while (codes.size < count) codes.add(randomCode());
  return [...codes];
}

/**
 * A typed code as it is hashed: lower case, spaces and dashes gone. `null` if what is left cannot
 * be a backup code (wrong length, a character outside the alphabet).
 */
export function normalizeBackupCode(typed: unknown): string | null {
  if (typeof typed !== "string" || typed.length > 64) return null;
  const code = typed.replace(/[\s-]+/g, "").toLowerCase();
  if (code.length !== BACKUP_CODE_LENGTH) return null;
  for (const char of code) if (!BACKUP_CODE_ALPHABET.includes(char)) return null;
  return code;
}

function saltedHash(salt: string, code: string): Promise<string> {
  return sha256Hex(`${salt}.${code}`);
}

/**
 * The stored form of a backup code, `<salt>.<hash>`: a random 64-bit salt in hex and the hex
 * SHA-256 of the salt and the code's normalised spelling, so that `K7M2P X9AD4` and `k7m2p-x9ad4`
 * are the same code. Hashing one code twice gives two different values; {@link useBackupCode}
 * checks a code against them. Throws a `TypeError` on text that is no backup code.
 */
export async function hashBackupCode(code: string): Promise<string> {
  const normalized = normalizeBackupCode(code);
  if (normalized === null) throw new TypeError("not a backup code");
  const salt = randomHex(8);
  return `${salt}.${await saltedHash(salt, normalized)}`;
}

/**
 * Redeems a typed backup code against the user's stored hashes. Returns the hashes that remain
 * (the list without the one used, the count of which the user may be shown), or `null` when the
 * code matches none; then nothing is used up. Every stored entry is hashed and compared, without
 * an early exit, so the time taken does not say which entry matched.
 *
 * The caller must store `remaining` in place of the old list only if the list is still the one
 * it read (a compare-and-set), or two requests could each spend the same code.
 *
 * @example
 * ```ts
 * const used = await useBackupCode(user.backupCodeHashes, input);
 * if (!used) return refuse();
 * await saveBackupCodes(user, used.remaining);
 * ```
 */
export async function useBackupCode(
  storedHashes: readonly string[],
  typed: unknown,
): Promise<{ remaining: string[] } | null> {
  const code = normalizeBackupCode(typed);
  if (code === null) return null;
  let index = -1;
  for (const [i, stored] of storedHashes.entries()) {
    const dot = stored.indexOf(".");
    // A malformed entry is hashed all the same (and can match nothing), to keep the time even.
    const expected = dot < 0 ? "" : stored.slice(dot + 1);
    const actual = await saltedHash(stored.slice(0, Math.max(dot, 0)), code);
    if (timingSafeEqual(expected, actual) && index < 0) index = i;
  }
  if (index < 0) return null;
  return { remaining: storedHashes.filter((_, i) => i !== index) };
}
