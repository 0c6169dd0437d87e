/**
 * Compact JWE with `alg: "dir"`, the session-token format Gatehouse shares with Auth.js.
 *
 * Two interchangeable engines: `node:crypto` (the fast path) and WebCrypto (the fallback where
 * `node:crypto` is absent). Tests prove each reads what the other writes, and that `jose` reads
 * what both write and both read what `jose` writes. Each engine remembers the tokens it decrypted
 * lately (see {@link rememberDecryptions}).
 */
import { base64url, fromBase64url, fromUtf8, isCanonicalBase64url, utf8 } from "./encoding.js";
import type { DerivedKey } from "./keys.js";
import { nodeCrypto } from "./node.js";

/** The protected header of a token, parsed but not yet trusted. */
export interface JweHeader {
  alg?: unknown;
  enc?: unknown;
  kid?: unknown;
  [key: string]: unknown;
}

/** A compact JWE split into its five parts, with its header parsed. */
export interface ParsedJwe {
  header: JweHeader;
  protectedHeader: string;
  iv: string;
  ciphertext: string;
  tag: string;
}

const acceptedEnc: ReadonlySet<unknown> = new Set(["A256CBC-HS512", "A256GCM"]);

/**
 * Parsed headers by their encoded form. A session cookie's header is the same on every
 * request, so it is decoded and checked once, not per request. Only valid headers are kept.
 */
const parsedHeaders = new Map<string, JweHeader>();

function parseHeader(protectedHeader: string): JweHeader {
  const cached = parsedHeaders.get(protectedHeader);
  if (cached) return cached;
  let header: unknown;
  try {
    header = JSON.parse(fromUtf8(fromBase64url(protectedHeader)));
  } catch {
    // No cause: a parser's message would quote the (attacker-chosen) header into the logs.
    throw new TypeError("JWE header is not base64url-encoded JSON");
  }
  if (typeof header !== "object" || header === null || Array.isArray(header)) {
    throw new TypeError("JWE header is not an object");
  }
  const h = header as JweHeader;
  if (h.alg !== "dir") throw new TypeError("unsupported JWE alg");
  if (!acceptedEnc.has(h.enc)) throw new TypeError("unsupported JWE enc");
  if ("zip" in h || "crit" in h) throw new TypeError("unsupported JWE header parameter");
  if (parsedHeaders.size >= 256) parsedHeaders.clear();
  parsedHeaders.set(protectedHeader, Object.freeze(h));
  return h;
}

/** Splits and checks the outer shape of a compact JWE. Throws on anything malformed. */
export function parseJwe(token: string): ParsedJwe {
  const parts = token.split(".");
  if (parts.length !== 5) throw new TypeError("not a compact JWE");
  const [protectedHeader, encryptedKey, iv, ciphertext, tag] = parts as [
    string,
    string,
    string,
    string,
    string,
  ];
  if (encryptedKey !== "") throw new TypeError("a direct-encryption JWE has no encrypted key");
  const h = parseHeader(protectedHeader);
  return { header: h, protectedHeader, iv, ciphertext, tag };
}

/** Encrypts and decrypts compact JWEs with a derived key. */
export interface JweEngine {
  encrypt(plaintext: Uint8Array, key: DerivedKey): Promise<string>;
  /** Throws when the token does not authenticate under this key. */
  decrypt(jwe: ParsedJwe, key: DerivedKey): Promise<Uint8Array>;
}

const headerCache = new Map<string, string>();

function protectedHeaderFor(key: DerivedKey): string {
  const id = `${key.enc}.${key.kid}`;
  let header = headerCache.get(id);
  if (!header) {
    if (headerCache.size > 1024) headerCache.clear();
    header = base64url(utf8(JSON.stringify({ alg: "dir", enc: key.enc, kid: key.kid })));
    headerCache.set(id, header);
  }
  return header;
}

/**
 * The 64-bit big-endian bit length of the AAD (RFC 7518 AL). Two 32-bit halves instead of a
 * BigInt: this runs on every session check, and the BigInt path measured slower.
 */
function lengthBlock(aad: Uint8Array): Uint8Array {
  const bits = aad.byteLength * 8;
  const block = new Uint8Array(8);
  const view = new DataView(block.buffer);
  view.setUint32(0, Math.floor(bits / 2 ** 32));
  view.setUint32(4, bits >>> 0);
  return block;
}

function nodeEngine(c: NonNullable<typeof nodeCrypto>): JweEngine {
  const cbcTag = (macKey: Uint8Array, aad: Uint8Array, iv: Uint8Array, ct: Uint8Array) =>
    c
      .createHmac("sha512", macKey)
      .update(aad)
      .update(iv)
      .update(ct)
      .update(lengthBlock(aad))
      .digest()
      .subarray(0, 32);

  return {
    async encrypt(plaintext, key) {
      const header = protectedHeaderFor(key);
      // The protected header is base64url: ASCII, so one byte per character.
      const aad = Buffer.from(header, "latin1");
      if (key.enc === "A256GCM") {
        const iv = c.randomBytes(12);
        const cipher = c.createCipheriv("aes-256-gcm", key.key, iv);
        cipher.setAAD(aad);
        const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
        const tag = cipher.getAuthTag();
        return `${header}..${iv.toString("base64url")}.${ct.toString("base64url")}.${tag.toString("base64url")}`;
      }
      const iv = c.randomBytes(16);
      const cipher = c.createCipheriv("aes-256-cbc", key.key.subarray(32), iv);
      const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      const tag = cbcTag(key.key.subarray(0, 32), aad, iv, ct);
      return `${header}..${iv.toString("base64url")}.${ct.toString("base64url")}.${tag.toString("base64url")}`;
    },
    async decrypt(jwe, key) {
      // UTF-8, as jose encodes it: both engines must agree even on a header that is not ASCII.
      const aad = Buffer.from(jwe.protectedHeader, "utf8");
      // Strict decoding: a token has exactly one spelling (no `+`/`/` variants of a byte).
      const iv = fromBase64url(jwe.iv);
      const ct = fromBase64url(jwe.ciphertext);
      const tag = fromBase64url(jwe.tag);
      if (key.enc === "A256GCM") {
        if (iv.byteLength !== 12 || tag.byteLength !== 16)
          throw new TypeError("bad GCM parameters");
        const decipher = c.createDecipheriv("aes-256-gcm", key.key, iv);
        decipher.setAAD(aad);
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(ct), decipher.final()]);
      }
      if (iv.byteLength !== 16 || tag.byteLength !== 32) throw new TypeError("bad CBC parameters");
      const expected = cbcTag(key.key.subarray(0, 32), aad, iv, ct);
      if (!c.timingSafeEqual(expected, tag)) throw new TypeError("JWE authentication failed");
      const decipher = c.createDecipheriv("aes-256-cbc", key.key.subarray(32), iv);
      return Buffer.concat([decipher.update(ct), decipher.final()]);
    },
  };
}

/**
 * A bounded map that keeps what was used lately: two generations of at most `limit` entries
 * each. Entries are added to the young one; when it is full it becomes the old one and the old
 * one is dropped. An entry found in the old generation moves back into the young one, so what is
 * still in use survives the turnover. Every operation is O(1), and at most `2 × limit` entries
 * are held.
 */
export class Recent<V> {
  #young = new Map<string, V>();
  #old = new Map<string, V>();

  constructor(readonly limit: number) {}

  get(key: string): V | undefined {
    const young = this.#young.get(key);
    if (young !== undefined) return young;
    const old = this.#old.get(key);
    if (old !== undefined) this.set(key, old);
    return old;
  }

  set(key: string, value: V): void {
    if (this.#young.size >= this.limit) {
      this.#old = this.#young;
      this.#young = new Map();
    }
    this.#young.set(key, value);
  }

  /** How many entries are held, across both generations (an entry may be in both). */
  get size(): number {
    return this.#young.size + this.#old.size;
  }
}

/** Tokens remembered per key, per generation (so up to twice as many). */
export const REMEMBERED_TOKENS = 1024;

/**
 * `inner`, remembering the plaintext of the tokens it decrypted lately, per key: a browser sends
 * the same session cookie with every request until it is re-issued (a day by default), and
 * decrypting it again is most of a session check (native cipher and HMAC objects, and the
 * garbage they leave). A token is found again only by every one of its parts, under the very key
 * object it authenticated with, so a hit is exactly what decrypting it again would return; a
 * token that failed is never remembered, and each caller gets its own copy of the bytes. What the
 * plaintext says (expiry, revocation, callbacks) is still checked on every request by the callers.
 * Memory is bounded: {@link REMEMBERED_TOKENS} tokens per key and generation ({@link Recent}),
 * and a key's memory goes with the key.
 */
export function rememberDecryptions(inner: JweEngine, limit = REMEMBERED_TOKENS): JweEngine {
  const byKey = new WeakMap<DerivedKey, Recent<Uint8Array>>();
  return {
    encrypt: (plaintext, key) => inner.encrypt(plaintext, key),
    async decrypt(jwe, key) {
      // The parts are base64url, which has no ".": joined, they name one token only.
      const id = `${jwe.protectedHeader}.${jwe.iv}.${jwe.ciphertext}.${jwe.tag}`;
      let recent = byKey.get(key);
      const known = recent?.get(id);
      if (known !== undefined) return known.slice();
      const plaintext = await inner.decrypt(jwe, key);
      if (!recent) {
        recent = new Recent(limit);
        byKey.set(key, recent);
      }
      // A copy (`Buffer#slice` would share the memory): the caller may do what it likes with its own.
      recent.set(id, new Uint8Array(plaintext));
      return plaintext;
    },
  };
}

/** Compares two byte strings of equal length without an early exit. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.byteLength ^ b.byteLength;
  for (let i = 0; i < a.byteLength; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

interface WebCryptoKeys {
  /** AES-GCM over the whole key, or AES-CBC over its second half. */
  cipher: CryptoKey;
  /** HMAC-SHA-512 over the first half (CBC only). */
  mac?: CryptoKey;
}

/**
 * The WebCrypto engine: the same two content encryptions as the `node:crypto` one, over
 * `crypto.subtle`, for runtimes without `node:crypto` (Workers, browsers). It is written here
 * rather than taken from `jose` because `jose`'s JWE code brings every key-management algorithm
 * with it: about 19 KB of a minified edge bundle for the one (`dir`) a session token uses
 * (bench/edge-bundle.mjs). Tests hold it to `jose` both ways (edge-jwe-webcrypto.test.ts) and to
 * the `node:crypto` engine on hostile spellings (crypto-engines.test.ts).
 */
function subtleEngine(): JweEngine {
  const subtle = () => crypto.subtle;
  const imported = new WeakMap<DerivedKey, Promise<WebCryptoKeys>>();
  const keysOf = (key: DerivedKey): Promise<WebCryptoKeys> => {
    let keys = imported.get(key);
    if (!keys) {
      const usage: KeyUsage[] = ["encrypt", "decrypt"];
      keys =
        key.enc === "A256GCM"
          ? subtle()
              .importKey("raw", key.key as BufferSource, "AES-GCM", false, usage)
              .then((cipher) => ({ cipher }))
          : Promise.all([
              subtle().importKey(
                "raw",
                key.key.subarray(32) as BufferSource,
                "AES-CBC",
                false,
                usage,
              ),
              subtle().importKey(
                "raw",
                key.key.subarray(0, 32) as BufferSource,
                { name: "HMAC", hash: "SHA-512" },
                false,
                ["sign"],
              ),
            ]).then(([cipher, mac]) => ({ cipher, mac }));
      imported.set(key, keys);
      keys.catch(() => imported.delete(key));
    }
    return keys;
  };
  const cbcTag = async (mac: CryptoKey, aad: Uint8Array, iv: Uint8Array, ct: Uint8Array) => {
    const input = new Uint8Array(aad.byteLength + iv.byteLength + ct.byteLength + 8);
    input.set(aad);
    input.set(iv, aad.byteLength);
    input.set(ct, aad.byteLength + iv.byteLength);
    input.set(lengthBlock(aad), input.byteLength - 8);
    return new Uint8Array(await subtle().sign("HMAC", mac, input)).subarray(0, 32);
  };
  const compact = (header: string, iv: Uint8Array, ct: Uint8Array, tag: Uint8Array) =>
    `${header}..${base64url(iv)}.${base64url(ct)}.${base64url(tag)}`;

  return {
    async encrypt(plaintext, key) {
      const header = protectedHeaderFor(key);
      const aad = utf8(header);
      const { cipher, mac } = await keysOf(key);
      const gcm = key.enc === "A256GCM";
      const iv = crypto.getRandomValues(new Uint8Array(gcm ? 12 : 16));
      const sealed = new Uint8Array(
        await subtle().encrypt(
          gcm ? { name: "AES-GCM", iv, additionalData: aad } : { name: "AES-CBC", iv },
          cipher,
          plaintext as BufferSource,
        ),
      );
      if (gcm) return compact(header, iv, sealed.subarray(0, -16), sealed.subarray(-16));
      return compact(header, iv, sealed, await cbcTag(mac!, aad, iv, sealed));
    },
    async decrypt(jwe, key) {
      // The same spelling rule as the node:crypto engine: one token, one encoding.
      for (const part of [jwe.protectedHeader, jwe.iv, jwe.ciphertext, jwe.tag]) {
        if (!isCanonicalBase64url(part)) throw new TypeError("JWE part is not canonical base64url");
      }
      const aad = utf8(jwe.protectedHeader);
      const iv = fromBase64url(jwe.iv);
      const ct = fromBase64url(jwe.ciphertext);
      const tag = fromBase64url(jwe.tag);
      const { cipher, mac } = await keysOf(key);
      let opened: ArrayBuffer;
      try {
        if (key.enc === "A256GCM") {
          if (iv.byteLength !== 12 || tag.byteLength !== 16)
            throw new TypeError("bad GCM parameters");
          const sealed = new Uint8Array(ct.byteLength + 16);
          sealed.set(ct);
          sealed.set(tag, ct.byteLength);
          opened = await subtle().decrypt(
            { name: "AES-GCM", iv: iv as BufferSource, additionalData: aad },
            cipher,
            sealed,
          );
        } else {
          if (iv.byteLength !== 16 || tag.byteLength !== 32)
            throw new TypeError("bad CBC parameters");
          if (!sameBytes(await cbcTag(mac!, aad, iv, ct), tag)) throw new Error();
          opened = await subtle().decrypt(
            { name: "AES-CBC", iv: iv as BufferSource },
            cipher,
            ct as BufferSource,
          );
        }
      } catch (error) {
        if (error instanceof TypeError) throw error;
        throw new TypeError("JWE authentication failed");
      }
      return new Uint8Array(opened);
    },
  };
}

/** The WebCrypto engine (where `node:crypto` is absent). */
export const webCryptoEngine: JweEngine = rememberDecryptions(subtleEngine());

/** @deprecated The WebCrypto engine's former name, from when it ran through `jose`. */
export const joseEngine: JweEngine = webCryptoEngine;

/** The `node:crypto` engine, where the runtime has it. */
export const fastEngine: JweEngine | undefined = nodeCrypto
  ? rememberDecryptions(nodeEngine(nodeCrypto))
  : undefined;

/** The engine in use: `node:crypto` when present, WebCrypto otherwise. */
export const engine: JweEngine = fastEngine ?? webCryptoEngine;
