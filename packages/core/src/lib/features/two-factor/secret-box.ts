/**
 * The TOTP secret at rest: sealed with AES-256-GCM under a key derived from the configured secret,
 * so a copy of the database alone yields no authenticator secrets.
 *
 * The key is HKDF-SHA256 of the configured secret (../../crypto/keys.ts, cached per process) with
 * a salt of its own, `"gatehouse two-factor secret"`: session keys take a cookie name as their
 * salt, and no cookie name holds a space, so no session key is ever this key. With a secret
 * array (rotation), the first secret seals and every one opens.
 *
 * A sealed value is one line of ASCII, `v1.<kid>.<iv>.<ciphertext>`, the last three in base64url:
 * the key id is the start of the key's RFC 7638 thumbprint, so opening goes straight to the right
 * secret; the IV is 96 random bits; the version and key id are authenticated with the ciphertext
 * (as additional data), as is an optional context, such as the user's id, that the value must be
 * opened with again.
 */
import {
  base64url,
  fromBase64url,
  fromUtf8,
  isCanonicalBase64url,
  utf8,
} from "../../crypto/encoding.js";
import { type DerivedKey, deriveKey } from "../../crypto/keys.js";
import { MissingSecret } from "../../errors.js";

const SALT = "gatehouse two-factor secret";
const VERSION = "v1";
/** Base64url characters of the thumbprint kept as the key id (66 bits). */
const KID_LENGTH = 11;
const kidPattern = new RegExp(`^[A-Za-z0-9_-]{${KID_LENGTH}}$`);
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The options of {@link sealSecret} and {@link openSecret}. */
export interface SecretBoxOptions {
  /**
   * Text the sealed value is bound to, such as the user's id: opening needs the same text, so a
   * value copied to another user's record does not open there. Default: none.
   */
  context?: string;
}

const cryptoKeys = new WeakMap<DerivedKey, Promise<CryptoKey>>();

function aesKey(derived: DerivedKey): Promise<CryptoKey> {
  let key = cryptoKeys.get(derived);
  if (!key) {
    key = crypto.subtle.importKey("raw", new Uint8Array(derived.key), "AES-GCM", false, [
      "encrypt",
      "decrypt",
    ]);
    cryptoKeys.set(derived, key);
  }
  return key;
}

function usable(secrets: readonly string[]): string[] {
  const list = secrets.filter((secret) => typeof secret === "string" && secret.length > 0);
  if (list.length === 0) throw new MissingSecret("Two-factor secrets need a configured secret");
  return list;
}

function additionalData(kid: string, options: SecretBoxOptions): Uint8Array<ArrayBuffer> {
  // The version and key id have no dots, so the context after them cannot be confused with them.
  return utf8(`${VERSION}.${kid}.${options.context ?? ""}`);
}

/**
 * Seals `plain` (a TOTP secret) with the first of `secrets`. Each call draws a new IV, so sealing
 * the same secret twice gives two different values.
 *
 * @example
 * ```ts
 * const sealed = await sealSecret(config.secret, totpSecret, { context: user.id });
 * ```
 */
export async function sealSecret(
  secrets: readonly string[],
  plain: string,
  options: SecretBoxOptions = {},
): Promise<string> {
  const derived = await deriveKey(usable(secrets)[0]!, SALT, "A256GCM");
  const kid = derived.kid.slice(0, KID_LENGTH);
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: additionalData(kid, options), tagLength: 128 },
    await aesKey(derived),
    utf8(plain),
  );
  return `${VERSION}.${kid}.${base64url(iv)}.${base64url(new Uint8Array(sealed))}`;
}

interface Parsed {
  kid: string;
  iv: Uint8Array<ArrayBuffer>;
  ciphertext: Uint8Array<ArrayBuffer>;
}

function parse(sealed: unknown): Parsed | null {
  if (typeof sealed !== "string" || sealed.length > 4096) return null;
  const parts = sealed.split(".");
  if (parts.length !== 4) return null;
  const [version, kid, iv, ciphertext] = parts as [string, string, string, string];
  // The key id is a cut thumbprint, base64url characters but not a whole encoding of bytes.
  if (version !== VERSION || !kidPattern.test(kid)) return null;
  if (!isCanonicalBase64url(iv) || !isCanonicalBase64url(ciphertext)) return null;
  const ivBytes = new Uint8Array(fromBase64url(iv));
  const ciphertextBytes = new Uint8Array(fromBase64url(ciphertext));
  if (ivBytes.byteLength !== IV_BYTES || ciphertextBytes.byteLength < TAG_BYTES) return null;
  return { kid, iv: ivBytes, ciphertext: ciphertextBytes };
}

/**
 * Opens a value {@link sealSecret} made with any of `secrets` (and the same `context`). Returns
 * `null` for anything else: another secret, another context, a changed character, a truncated or
 * foreign string. Throws only when no secret is configured.
 *
 * @example
 * ```ts
 * const totpSecret = await openSecret(config.secret, row.sealed, { context: user.id });
 * if (totpSecret === null) throw new Error("unreadable two-factor secret"); // no value in it
 * ```
 */
export async function openSecret(
  secrets: readonly string[],
  sealed: unknown,
  options: SecretBoxOptions = {},
): Promise<string | null> {
  const list = usable(secrets);
  const parsed = parse(sealed);
  if (!parsed) return null;
  for (const secret of list) {
    const derived = await deriveKey(secret, SALT, "A256GCM");
    if (derived.kid.slice(0, KID_LENGTH) !== parsed.kid) continue;
    try {
      const plain = await crypto.subtle.decrypt(
        {
          name: "AES-GCM",
          iv: parsed.iv,
          additionalData: additionalData(parsed.kid, options),
          tagLength: 128,
        },
        await aesKey(derived),
        parsed.ciphertext,
      );
      return fromUtf8(new Uint8Array(plain));
    } catch {
      // A failed tag check: try the next secret with the same key id, if there is one.
    }
  }
  return null;
}
