/**
 * Password hashes written by other libraries, checked so that users brought over from another
 * system sign in with the password they have: `verifyPassword` (./password.ts) loads this module
 * when a stored hash is not one of its own, and its `needsRehash` is true for each of these, so the
 * first successful sign-in replaces the hash with Gatehouse's.
 *
 * - **bcrypt** (`$2a$`, `$2b$`, `$2y$`: Auth.js credentials examples, Laravel, Rails, PHP's
 *   `password_hash`), through `bcryptjs`. Cost 4 to 14. bcrypt reads only the first 72 bytes of a
 *   password (UTF-8) and ignores the rest; the check does the same, as the system that wrote the
 *   hash did, and the upgrade then binds the whole password.
 * - **Argon2** (`$argon2id$v=19$m=…,t=…,p=…$<salt>$<hash>`, the three in any order, and `$argon2i$`, which PHP 7.2 and
 *   older Django and node-argon2 releases wrote), through `argon2`. `$argon2d$` is refused: it is
 *   not meant for passwords and no password library writes it by default. The parameters are
 *   bounded before the library is called: m at most 256 MiB, t at most 10, p at most 16, and m·t
 *   at most 1 GiB, so a stored hash cannot make one check take seconds or gigabytes.
 * - **Better Auth's default** (`<salt>:<key>`, 32 and 128 lowercase hex digits): scrypt N=16384,
 *   r=16, p=1, 64 bytes, of the NFKC password, with the salt's hex *text* as the salt, as Better
 *   Auth's `@better-auth/utils/password` does; node:crypto, no library.
 *
 * bcrypt and Argon2 hashes are checked against the password as typed: the libraries that wrote
 * them did not normalise it. `bcryptjs` and `argon2` are optional peer dependencies, imported on
 * the first hash that needs one. A missing one is an Error naming the package (never the hash):
 * answering `false` would turn a deployment problem into "wrong password" for every such user.
 */

/** scrypt as ./password.ts runs it (bounded memory, node:crypto), handed over to avoid a cycle. */
export interface Hashing {
  scrypt(
    password: string,
    salt: Buffer,
    length: number,
    parameters: { N: number; r: number; p: number },
  ): Promise<Buffer>;
  timingSafeEqual(a: Buffer, b: Buffer): boolean;
}

/** The password in both forms: as typed (bcrypt, Argon2) and NFKC (Better Auth). */
export interface Password {
  typed: string;
  normalised: string;
}

/** The longest stored value of any form below (an Argon2 hash at the bounds is about 200). */
const MAX_STORED_LENGTH = 256;

const BCRYPT = /^\$2[aby]\$(\d\d)\$[./A-Za-z0-9]{53}$/;
const BCRYPT_MIN_COST = 4;
const BCRYPT_MAX_COST = 14;

const ARGON2 = /^\$argon2(id|i|d)\$v=19\$([mtp=\d,]{11,40})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;
/** m, t and p once each, in any order: libargon2 and PHP write `m,t,p`, node-argon2 `m,p,t`. */
const ARGON2_PARAMETER = /^([mtp])=([1-9]\d{0,9})$/;
/** In KiB, as `m` is written. */
const ARGON2_MAX_MEMORY = 256 * 1024;
const ARGON2_MAX_PASSES = 10;
const ARGON2_MAX_LANES = 16;
/** m·t, in KiB: 1 GiB of memory filled in all, a few times the work of the largest scrypt allowed. */
const ARGON2_MAX_WORK = 2 ** 20;
const ARGON2_MIN_SALT_BYTES = 8;
const ARGON2_MIN_HASH_BYTES = 16;
const ARGON2_MAX_BYTES = 64;

const BETTER_AUTH = /^([0-9a-f]{32}):([0-9a-f]{128})$/;
const BETTER_AUTH_SCRYPT = { N: 2 ** 14, r: 16, p: 1 };
const BETTER_AUTH_KEY_BYTES = 64;

/** The byte length of unpadded standard base64 `text` (PHC's B64) when canonical, else null. */
function b64Length(text: string): number | null {
  const bytes = Buffer.from(text, "base64");
  return bytes.toString("base64").replace(/=+$/, "") === text ? bytes.length : null;
}

/** The `m`, `t` and `p` of an Argon2 hash's parameter field, or null when it holds anything else. */
function argon2Parameters(field: string): { m: number; t: number; p: number } | null {
  const found = new Map<string, number>();
  for (const part of field.split(",")) {
    const match = ARGON2_PARAMETER.exec(part);
    if (!match || found.has(match[1] ?? "")) return null;
    found.set(match[1] ?? "", Number(match[2]));
  }
  const [m, t, p] = [found.get("m"), found.get("t"), found.get("p")];
  return m && t && p ? { m, t, p } : null;
}

function argon2WithinBounds(stored: string): boolean {
  const match = ARGON2.exec(stored);
  if (!match || match[1] === "d") return false;
  const parameters = argon2Parameters(match[2] ?? "");
  if (!parameters) return false;
  const { m, t, p } = parameters;
  const salt = b64Length(match[3] ?? "");
  const hash = b64Length(match[4] ?? "");
  return (
    m <= ARGON2_MAX_MEMORY &&
    t <= ARGON2_MAX_PASSES &&
    p <= ARGON2_MAX_LANES &&
    m >= 8 * p &&
    m * t <= ARGON2_MAX_WORK &&
    salt !== null &&
    salt >= ARGON2_MIN_SALT_BYTES &&
    salt <= ARGON2_MAX_BYTES &&
    hash !== null &&
    hash >= ARGON2_MIN_HASH_BYTES &&
    hash <= ARGON2_MAX_BYTES
  );
}

interface Bcryptjs {
  compare(password: string, hash: string): Promise<boolean>;
}

interface Argon2 {
  verify(digest: string, password: string): Promise<boolean>;
}

/**
 * Imports a package by a name the bundlers cannot see: a bundler resolves (and fails on, when it is
 * not installed) every literal `import()` it meets, and these peers are optional; `argon2` is a
 * native addon no edge bundle could hold anyway.
 */
function importPackage(name: string): Promise<Record<string, unknown>> {
  return import(/* webpackIgnore: true */ /* @vite-ignore */ name);
}

const libraries = new Map<string, Promise<unknown>>();

/**
 * The optional package `name`, whose `method` the check calls, imported once. Found either as a
 * named export or on the default export (a CommonJS build).
 */
async function library<T>(name: string, method: string, form: string): Promise<T> {
  let loading = libraries.get(name);
  if (!loading) {
    loading = importPackage(name).then((module) => {
      const fallback = module.default as Record<string, unknown> | undefined;
      const found = typeof module[method] === "function" ? module : fallback;
      if (typeof found?.[method] !== "function") throw new Error(`${name} has no ${method}()`);
      return found;
    });
    libraries.set(name, loading);
    // Not kept when it failed: the next check tries again (and says so again).
    loading.catch(() => libraries.delete(name));
  }
  try {
    return (await loading) as T;
  } catch (cause) {
    throw new Error(
      `Checking ${form} password hashes needs the optional package "${name}", which could not ` +
        `be loaded: install it beside @gatehousejs/core (npm install ${name}); a single-file ` +
        "edge bundle cannot load it, check such hashes on Node",
      { cause },
    );
  }
}

/**
 * Whether `password` matches `stored`, a hash in one of the forms above; `false` for anything
 * else (malformed, out of bounds, `$argon2d$`).
 *
 * @throws Error naming the package when bcryptjs or argon2 is needed and cannot be loaded.
 */
export async function verifyImportedPassword(
  password: Password,
  stored: string,
  hashing: Hashing,
): Promise<boolean> {
  if (stored.length > MAX_STORED_LENGTH) return false;
  const bcrypt = BCRYPT.exec(stored);
  if (bcrypt) {
    const cost = Number(bcrypt[1]);
    if (cost < BCRYPT_MIN_COST || cost > BCRYPT_MAX_COST) return false;
    const bcryptjs = await library<Bcryptjs>("bcryptjs", "compare", "bcrypt");
    return (await bcryptjs.compare(password.typed, stored)) === true;
  }
  if (stored.startsWith("$argon2")) {
    if (!argon2WithinBounds(stored)) return false;
    const argon2 = await library<Argon2>("argon2", "verify", "Argon2");
    return (await argon2.verify(stored, password.typed)) === true;
  }
  const betterAuth = BETTER_AUTH.exec(stored);
  if (betterAuth) {
    const [, salt = "", key = ""] = betterAuth;
    const expected = Buffer.from(key, "hex");
    // The salt is the hex text itself, not the bytes it spells.
    const derived = await hashing.scrypt(
      password.normalised,
      Buffer.from(salt, "utf8"),
      BETTER_AUTH_KEY_BYTES,
      BETTER_AUTH_SCRYPT,
    );
    return hashing.timingSafeEqual(derived, expected);
  }
  return false;
}
