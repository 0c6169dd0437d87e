/**
 * Compact JWE with `alg: "dir"`, the session-token format Gatehouse shares with Auth.js.
 *
 * Two interchangeable engines: `node:crypto` (the fast path) and `jose` over WebCrypto (the
 * fallback where `node:crypto` is absent). Tests prove each reads what the other writes.
 * `jose` is imported on the first use of its engine, never at load: it is most of the package's
 * import time, and on Node no session token ever needs it. Each engine remembers the tokens it
 * decrypted lately (see {@link rememberDecryptions}).
 */
import { base64url, fromBase64url, fromUtf8, isCanonicalBase64url, utf8 } from "./encoding.js";
import type { ContentEncryption, DerivedKey } from "./keys.js";
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

let jose: Promise<typeof import("./jose-jwe.js")> | undefined;

/** `jose`, imported on the first call and shared by every call after it. */
function loadJose(): Promise<typeof import("./jose-jwe.js")> {
  jose ??= import("./jose-jwe.js");
  return jose;
}

/** The WebCrypto engine, through `jose`. */
export const joseEngine: JweEngine = rememberDecryptions({
  async encrypt(plaintext, key) {
    const { CompactEncrypt } = await loadJose();
    return new CompactEncrypt(plaintext)
      .setProtectedHeader({ alg: "dir", enc: key.enc, kid: key.kid })
      .encrypt(key.key);
  },
  async decrypt(jwe, key) {
    // jose decodes leniently (padding, whitespace, spare bits): hold it to the spelling the
    // node:crypto engine accepts, so that both engines take exactly the same tokens.
    for (const part of [jwe.protectedHeader, jwe.iv, jwe.ciphertext, jwe.tag]) {
      if (!isCanonicalBase64url(part)) throw new TypeError("JWE part is not canonical base64url");
    }
    const token = `${jwe.protectedHeader}..${jwe.iv}.${jwe.ciphertext}.${jwe.tag}`;
    const { compactDecrypt } = await loadJose();
    const { plaintext } = await compactDecrypt(token, key.key, {
      keyManagementAlgorithms: ["dir"],
      contentEncryptionAlgorithms: [key.enc satisfies ContentEncryption],
    });
    return plaintext;
  },
});

/** The `node:crypto` engine, where the runtime has it. */
export const fastEngine: JweEngine | undefined = nodeCrypto
  ? rememberDecryptions(nodeEngine(nodeCrypto))
  : undefined;

/** The engine in use: `node:crypto` when present, `jose` otherwise. */
export const engine: JweEngine = fastEngine ?? joseEngine;
