/**
 * Password hashes with scrypt from `node:crypto`, reached through {@link nodeCrypto} so that this
 * module adds no static `node:crypto` import to the main entry.
 *
 * Stored form: `scrypt$N=32768,r=8,p=1$<salt>$<hash>`, salt and hash in base64url. The older form
 * `scrypt$<salt>$<hash>` (N=16384, r=8, p=1, written by the example app before this module) is
 * still read, and {@link needsRehash} says it should be replaced.
 *
 * Hashes written by other libraries (bcrypt, Argon2, Better Auth's scrypt) are checked by
 * ./password-imported.ts, loaded only when such a hash is met; they all need a rehash.
 */
import { isCanonicalBase64url } from "./encoding.js";
import { nodeCrypto } from "./node.js";
import type { Hashing } from "./password-imported.js";

/** scrypt's cost parameters, as `hashPassword`, `verifyPassword` and `needsRehash` take them. */
export interface PasswordHashOptions {
  /** CPU and memory cost: a power of two from 1,024 to 131,072. Default 32,768 (2^15). */
  N?: number;
  /** Block size, 1 to 32. Default 8. */
  r?: number;
  /** Parallelisation, 1 to 16. Default 1. */
  p?: number;
}

interface Parameters {
  N: number;
  r: number;
  p: number;
}

/**
 * The longest password accepted, in UTF-16 code units (`password.length`), counted before
 * normalisation. Longer ones are refused without being hashed, so a megabyte "password" costs
 * nothing.
 */
export const MAX_PASSWORD_LENGTH = 1024;

const DEFAULTS: Parameters = { N: 2 ** 15, r: 8, p: 1 };
/** What `scrypt$<salt>$<hash>` was written with. */
const LEGACY: Parameters = { N: 2 ** 14, r: 8, p: 1 };
const SALT_BYTES = 16;
const KEY_BYTES = 32;

/**
 * The bounds on parameters, for hashing and, more to the point, for every stored hash read back:
 * a hash written by someone else may not make one verification use more than 128 MiB or more work
 * than N=2^17, r=8, p=1 (a few hundred milliseconds). Every OWASP-recommended scrypt setting fits.
 */
const MIN_N = 2 ** 10;
const MAX_MEMORY = 128 * 2 ** 20;
const MAX_WORK = 2 ** 20;
const MAX_R = 32;
const MAX_P = 16;
const MIN_SALT_BYTES = 8;
const MIN_KEY_BYTES = 16;
const MAX_BYTES = 64;
/** Longer than any hash within the bounds; anything longer is not even split. */
const MAX_STORED_LENGTH = 256;

const LONE_SURROGATE = /\p{Cs}/u;
const PARAMETERS = /^N=([1-9]\d{0,9}),r=([1-9]\d{0,2}),p=([1-9]\d{0,2})$/;

function withinBounds({ N, r, p }: Parameters): boolean {
  return (
    Number.isSafeInteger(N) &&
    Number.isSafeInteger(r) &&
    Number.isSafeInteger(p) &&
    N >= MIN_N &&
    (N & (N - 1)) === 0 &&
    r >= 1 &&
    r <= MAX_R &&
    p >= 1 &&
    p <= MAX_P &&
    128 * N * r <= MAX_MEMORY &&
    N * r * p <= MAX_WORK
  );
}

/** The options with their defaults; a RangeError when they are outside the bounds. */
function parametersOf(options: PasswordHashOptions | undefined): Parameters {
  const parameters = {
    N: options?.N ?? DEFAULTS.N,
    r: options?.r ?? DEFAULTS.r,
    p: options?.p ?? DEFAULTS.p,
  };
  if (!withinBounds(parameters)) {
    throw new RangeError(
      "scrypt parameters out of bounds: N a power of two from 1024, r 1-32, p 1-16, " +
        "128·N·r at most 128 MiB and N·r·p at most 2^20",
    );
  }
  return parameters;
}

/** The password as it is hashed (NFKC), or null when it is not one we hash. */
function normalised(password: unknown): string | null {
  if (typeof password !== "string" || password.length > MAX_PASSWORD_LENGTH) return null;
  // A lone surrogate would be encoded as U+FFFD, so different strings would share a hash.
  if (LONE_SURROGATE.test(password)) return null;
  return password.normalize("NFKC");
}

interface StoredHash extends Parameters {
  /** Base64url, checked canonical, with their lengths in bytes. */
  salt: string;
  saltBytes: number;
  hash: string;
  hashBytes: number;
  legacy: boolean;
}

/** The byte length of canonical base64url `text` when it is within bounds, else null. */
function lengthOf(text: string, min: number): number | null {
  if (!isCanonicalBase64url(text)) return null;
  const bytes = Math.floor((text.length * 3) / 4);
  return bytes >= min && bytes <= MAX_BYTES ? bytes : null;
}

/** A stored hash taken apart, or null when it is not one this module wrote or can read safely. */
function parse(stored: unknown): StoredHash | null {
  if (typeof stored !== "string" || stored.length > MAX_STORED_LENGTH) return null;
  const parts = stored.split("$");
  if (parts[0] !== "scrypt" || (parts.length !== 3 && parts.length !== 4)) return null;
  let parameters = LEGACY;
  if (parts.length === 4) {
    const match = PARAMETERS.exec(parts[1] ?? "");
    if (!match) return null;
    parameters = { N: Number(match[1]), r: Number(match[2]), p: Number(match[3]) };
    if (!withinBounds(parameters)) return null;
  }
  const salt = parts.at(-2) ?? "";
  const hash = parts.at(-1) ?? "";
  const saltBytes = lengthOf(salt, MIN_SALT_BYTES);
  const hashBytes = lengthOf(hash, MIN_KEY_BYTES);
  if (saltBytes === null || hashBytes === null) return null;
  return { ...parameters, salt, saltBytes, hash, hashBytes, legacy: parts.length === 3 };
}

/** `node:crypto`; an Error (a deployment problem, not bad input) in a runtime without it. */
function crypto(): NonNullable<typeof nodeCrypto> {
  if (!nodeCrypto) throw new Error("Password hashing needs node:crypto (scrypt) in this runtime");
  return nodeCrypto;
}

function scrypt(password: string, salt: Buffer, length: number, { N, r, p }: Parameters) {
  // What OpenSSL allocates (the V array and B), with room to spare: Node's default is 32 MiB.
  const maxmem = 128 * r * (N + p + 2) + 2 ** 20;
  return new Promise<Buffer>((resolve, reject) => {
    crypto().scrypt(password, salt, length, { N, r, p, maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/**
 * Hashes a password with scrypt and a fresh random 16-byte salt. The password is normalised to
 * NFKC first, so the same characters typed on different keyboards match.
 *
 * @param options scrypt's cost; the defaults (N=2^15, r=8, p=1: 32 MiB, tens of milliseconds)
 *   suit a web server. Pass the same options to `verifyPassword` and `needsRehash`.
 * @returns `scrypt$N=…,r=…,p=…$<salt>$<hash>` (base64url), under 100 characters.
 * @throws TypeError when `password` is not a string, is longer than {@link MAX_PASSWORD_LENGTH}
 *   or holds a lone surrogate; RangeError when the options are out of bounds.
 *
 * @example
 * ```ts
 * const hash = await hashPassword(form.password); // store it with the user
 * ```
 */
export async function hashPassword(
  password: string,
  options?: PasswordHashOptions,
): Promise<string> {
  const parameters = parametersOf(options);
  const text = normalised(password);
  if (text === null) {
    throw new TypeError(
      `The password must be a well-formed string of at most ${MAX_PASSWORD_LENGTH} characters`,
    );
  }
  const salt = crypto().randomBytes(SALT_BYTES);
  const key = await scrypt(text, salt, KEY_BYTES, parameters);
  const { N, r, p } = parameters;
  return `scrypt$N=${N},r=${r},p=${p}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

/**
 * Whether `password` matches a hash from {@link hashPassword} (or the older
 * `scrypt$<salt>$<hash>` form), compared in constant time.
 *
 * Hashes brought over from other systems are checked too, so their users sign in without a reset
 * ({@link needsRehash} is true for each, so the next sign-in can store a Gatehouse hash):
 * - bcrypt (`$2a$`, `$2b$`, `$2y$`, cost 4 to 14), with the optional package `bcryptjs`; as bcrypt
 *   does, only the first 72 bytes of the password count;
 * - Argon2 (`$argon2id$` and `$argon2i$`, `v=19`, at most m=256 MiB, t=10, p=16 and m·t=1 GiB),
 *   with the optional package `argon2`;
 * - Better Auth's default scrypt form (`<salt>:<key>` in hex), with `node:crypto`.
 * bcrypt and Argon2 get the password as typed, as the libraries that wrote them did; Better Auth's
 * form and Gatehouse's own get it in NFKC.
 *
 * Never throws for what it is given: a stored value that is malformed, not a string, or whose
 * parameters exceed the bounds (a hash that would take seconds or gigabytes) gives `false`, as does
 * a password that `hashPassword` would refuse, and an `$argon2d$` hash (not a password hash).
 *
 * With `stored` null or undefined (no such user), it does the same work as checking a hash made
 * with `options` and answers `false`, so an unknown account takes as long as a wrong password.
 *
 * @param options the parameters your app hashes with; used only when `stored` is null.
 * @throws RangeError when `options` are out of bounds (a programming error, not bad input); Error
 *   when the runtime has no `node:crypto`, or when a bcrypt or Argon2 hash needs `bcryptjs` or
 *   `argon2` and it is not installed (the message names the package), rather than a `false` that
 *   would lock every such user out in silence.
 *
 * @example
 * ```ts
 * const user = await findUserByEmail(email);
 * // Called for unknown addresses too: the answer takes as long either way.
 * const ok = await verifyPassword(password, user?.passwordHash ?? null);
 * return user && ok ? user : null;
 * ```
 */
export async function verifyPassword(
  password: string,
  stored: string | null | undefined,
  options?: PasswordHashOptions,
): Promise<boolean> {
  const parameters = parametersOf(options);
  const node = crypto();
  const text = normalised(password);
  if (text === null) return false;
  if (stored === null || stored === undefined) {
    const key = await scrypt(text, node.randomBytes(SALT_BYTES), KEY_BYTES, parameters);
    // The same comparison a real check makes, against a value nobody can match.
    node.timingSafeEqual(key, node.randomBytes(KEY_BYTES));
    return false;
  }
  const hash = parse(stored);
  if (!hash) return verifyOtherForm(password, text, stored);
  const expected = Buffer.from(hash.hash, "base64url");
  const key = await scrypt(text, Buffer.from(hash.salt, "base64url"), hash.hashBytes, hash);
  return node.timingSafeEqual(key, expected);
}

/**
 * A stored value that is not in this module's form: handed to ./password-imported.ts, which
 * reads the other libraries' forms and is loaded on the first one met (a malformed `scrypt$…`
 * value is ours, and simply false).
 */
async function verifyOtherForm(typed: string, normalised: string, stored: unknown) {
  if (typeof stored !== "string" || stored.length > MAX_STORED_LENGTH) return false;
  if (stored.startsWith("scrypt$")) return false;
  const { verifyImportedPassword } = await import("./password-imported.js");
  const node = crypto();
  const hashing: Hashing = { scrypt, timingSafeEqual: (a, b) => node.timingSafeEqual(a, b) };
  return verifyImportedPassword({ typed, normalised }, stored, hashing);
}

/**
 * Whether a stored hash should be replaced by a new one made with `options`: it is in the older
 * form, another library's (bcrypt, Argon2, Better Auth's: see {@link verifyPassword}), its
 * parameters or sizes differ from the current ones, or it cannot be read at all. Call it
 * after a successful {@link verifyPassword}, while the plain password is at hand.
 *
 * @throws RangeError when `options` are out of bounds.
 *
 * @example
 * ```ts
 * if (ok && needsRehash(user.passwordHash)) await savePasswordHash(user.id, await hashPassword(password));
 * ```
 */
export function needsRehash(stored: string, options?: PasswordHashOptions): boolean {
  const current = parametersOf(options);
  const hash = parse(stored);
  return (
    !hash ||
    hash.legacy ||
    hash.N !== current.N ||
    hash.r !== current.r ||
    hash.p !== current.p ||
    hash.saltBytes !== SALT_BYTES ||
    hash.hashBytes !== KEY_BYTES
  );
}
