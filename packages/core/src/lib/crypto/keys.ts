/**
 * Session-token key derivation, cached per (secret, salt, encryption): deriving is the costly
 * part of a session check, and it must happen once per process, not once per request.
 */
import { base64url, utf8 } from "./encoding.js";
import { nodeCrypto } from "./node.js";

/** The content encryptions Gatehouse reads; the first is the one it writes. */
export type ContentEncryption = "A256CBC-HS512" | "A256GCM";

/** A derived key and its RFC 7638 thumbprint (the JWE `kid`). */
export interface DerivedKey {
  key: Uint8Array;
  kid: string;
  enc: ContentEncryption;
}

const keyLength: Record<ContentEncryption, number> = { "A256CBC-HS512": 64, A256GCM: 32 };
const cache = new Map<string, Promise<DerivedKey> | DerivedKey>();
const cacheLimit = 1024;

function info(salt: string): string {
  // The info string is part of the wire format shared with Auth.js.
  return `Auth.js Generated Encryption Key (${salt})`;
}

async function hkdf(secret: string, salt: string, length: number): Promise<Uint8Array> {
  if (nodeCrypto) {
    return new Uint8Array(nodeCrypto.hkdfSync("sha256", secret, salt, info(salt), length));
  }
  const ikm = await crypto.subtle.importKey("raw", utf8(secret), "HKDF", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits(
    { name: "HKDF", hash: "SHA-256", salt: utf8(salt), info: utf8(info(salt)) },
    ikm,
    length * 8,
  );
  return new Uint8Array(bits);
}

async function thumbprint(key: Uint8Array): Promise<string> {
  // RFC 7638: the required members of an "oct" JWK, in lexicographic order, without spaces.
  const json = `{"k":"${base64url(key)}","kty":"oct"}`;
  const hash = key.byteLength === 64 ? "SHA-512" : "SHA-256";
  if (nodeCrypto) {
    return base64url(
      nodeCrypto.createHash(hash.replace("-", "").toLowerCase()).update(json).digest(),
    );
  }
  return base64url(new Uint8Array(await crypto.subtle.digest(hash, utf8(json))));
}

async function derive(secret: string, salt: string, enc: ContentEncryption): Promise<DerivedKey> {
  const key = await hkdf(secret, salt, keyLength[enc]);
  return { key, kid: await thumbprint(key), enc };
}

/** The key for (secret, salt, enc), derived once and then served from memory. */
export function deriveKey(
  secret: string,
  salt: string,
  enc: ContentEncryption = "A256CBC-HS512",
): Promise<DerivedKey> | DerivedKey {
  // Length-prefixed, so that no two (salt, secret) pairs can share an id.
  const id = `${enc}:${salt.length}:${salt}:${secret}`;
  const hit = cache.get(id);
  if (hit) return hit;
  if (cache.size >= cacheLimit) cache.clear();
  const pending = derive(secret, salt, enc).then((derived) => {
    cache.set(id, derived);
    return derived;
  });
  pending.catch(() => cache.delete(id));
  cache.set(id, pending);
  return pending;
}
