/**
 * Counter keys. A key names its limit and carries a keyed hash (SHA-256 salted with the first
 * secret) of what it counts, so neither an address nor an account ever reaches a shared store or a
 * log line, and nobody without the secret can tell whose counter a key is.
 *
 * This process's own memory store is the exception: what it counts never leaves the process, so
 * its keys hold the address and account as they are ({@link plainKey}) and an attempt computes no
 * hash. A log line still names a counter by its hashed key only.
 */
import { base64url, utf8 } from "../../crypto/encoding.js";
import { nodeCrypto } from "../../crypto/node.js";
import type { CredentialInput } from "../../types/providers.js";

/** The longest account identifier counted as given; longer ones are cut (they still count). */
const MAX_ACCOUNT_LENGTH = 320;

/** Per secret: the salt every key's hash starts with (SHA-256 of a label and the secret). */
const salts = new Map<string, string | Promise<string>>();

/** Base64url SHA-256: synchronous with `node:crypto`, a promise through WebCrypto. */
function sha256(text: string): string | Promise<string> {
  if (nodeCrypto) {
    // One-shot `hash` (Node 20.12+) is several times faster than a Hash object.
    if (typeof nodeCrypto.hash === "function") return nodeCrypto.hash("sha256", text, "base64url");
    return nodeCrypto.createHash("sha256").update(text, "utf8").digest("base64url");
  }
  return crypto.subtle
    .digest("SHA-256", utf8(text))
    .then((digest) => base64url(new Uint8Array(digest)));
}

function saltOf(secret: string): string | Promise<string> {
  let salt = salts.get(secret);
  if (salt === undefined) {
    salt = sha256(`gatehouse-rate-limit-salt\u0000${secret}`);
    salts.set(secret, salt);
  }
  return salt;
}

function keyWith(salt: string, limit: string, parts: string[]): string | Promise<string> {
  const digest = sha256(`${salt}\u0000${limit}\u0000${parts.join("\u0000")}`);
  return typeof digest === "string"
    ? `${limit}:${digest.slice(0, 22)}`
    : digest.then((d) => `${limit}:${d.slice(0, 22)}`);
}

/**
 * The store key of a limit over some parts: `<limit>:<22 characters of a keyed hash>`, the hash
 * being SHA-256 over a salt derived from the secret, the limit and the parts (joined with a
 * character no address or normalised identifier holds). Without the secret nobody can tell whose
 * counter a key is, not even by trying every IPv4 address. Synchronous with `node:crypto`.
 */
export function limitKey(secret: string, limit: string, parts: string[]): string | Promise<string> {
  const salt = saltOf(secret);
  return typeof salt === "string"
    ? keyWith(salt, limit, parts)
    : salt.then((s) => keyWith(s, limit, parts));
}

/**
 * SHA-256 (base64url) of a text after the salt of a secret: a keyed hash that nobody without the
 * secret can compute. Synchronous with `node:crypto`. As a seal, give it a prefix-free text (every
 * field of fixed length, or preceded by its length), so that no seal can be extended into another.
 */
export function keyedHash(secret: string, text: string): string | Promise<string> {
  const salt = saltOf(secret);
  return typeof salt === "string"
    ? sha256(`${salt}\u0000${text}`)
    : salt.then((s) => sha256(`${s}\u0000${text}`));
}

/** The longest part a plain key holds: longer ones (a long account) make the key hashed. */
const MAX_PLAIN_PART = 64;

/**
 * The key of a counter in this process's memory store, within its limit's partition: the parts as
 * they are, joined with NUL. The last part is the client's address or bucket, which never holds a
 * NUL, so keys of different clients never meet, whatever an account holds. Nor does a plain key
 * meet a hashed one (`<limit>:<hash>`): one part is an address, never a limit's name, and two parts
 * hold a NUL, which no hashed key does. `null` when a part is longer than 64 characters: the
 * hashed key then keeps the store's entries small.
 */
export function plainKey(parts: string[]): string | null {
  for (const part of parts) if (part.length > MAX_PLAIN_PART) return null;
  return parts.length === 1 ? (parts[0] as string) : parts.join("\u0000");
}

/**
 * How a log line names a counter: the limit and the first characters of its hashed key, never the
 * address or account it counts. Just the limit where the hash needs a promise (no `node:crypto`).
 */
export function loggableKey(secret: string, limit: string, parts: string[]): string {
  const key = limitKey(secret, limit, parts);
  if (typeof key !== "string") return limit;
  const cut = key.lastIndexOf(":");
  return `${limit} ${key.slice(cut + 1, cut + 9)}`;
}

/** An account identifier as counted: trimmed, Unicode NFKC, lowercase, at most 320 characters. */
export function normalizeAccount(value: string): string {
  const trimmed = value.trim();
  // Printable ASCII is its own NFKC form.
  const text = /^[\x20-\x7e]*$/.test(trimmed) ? trimmed : trimmed.normalize("NFKC");
  return text.toLowerCase().slice(0, MAX_ACCOUNT_LENGTH);
}

const filled = (value: unknown): value is string =>
  typeof value === "string" && value.trim() !== "";

/**
 * The account a credentials attempt is for: the app's `account` function, else the `email` field,
 * else `username`, else the first declared field that is not a password. `""` when none is a
 * non-empty string (the attempt is then counted per client address only).
 */
export function accountOf(
  credentials: Record<string, unknown>,
  declared: Record<string, CredentialInput> | undefined,
  custom: ((credentials: Record<string, unknown>) => string | null | undefined) | undefined,
): string {
  let value: unknown;
  if (custom) value = custom(credentials);
  else if (filled(credentials.email)) value = credentials.email;
  else if (filled(credentials.username)) value = credentials.username;
  else {
    for (const name in declared) {
      if (declared[name]?.type !== "password" && filled(credentials[name])) {
        value = credentials[name];
        break;
      }
    }
  }
  return typeof value === "string" ? normalizeAccount(value) : "";
}
