import { createHash, hkdfSync } from "node:crypto";
import { compactDecrypt } from "jose";
import { describe, expect, it } from "vitest";
import { fastEngine, type JweEngine, joseEngine, parseJwe } from "../src/lib/crypto/jwe.js";
import { type ContentEncryption, deriveKey } from "../src/lib/crypto/keys.js";

const SECRET = "engine-test-secret-0123456789abcdef";
const SALT = "authjs.session-token";
const encs: ContentEncryption[] = ["A256CBC-HS512", "A256GCM"];

const te = new TextEncoder();
const td = new TextDecoder();
const b64 = (value: string | Uint8Array) => Buffer.from(value).toString("base64url");
const b64json = (value: unknown) => b64(JSON.stringify(value));

function requireFast(): JweEngine {
  if (!fastEngine) throw new Error("node:crypto engine unavailable in this runtime");
  return fastEngine;
}

const engines = (): [string, JweEngine][] => [
  ["node:crypto", requireFast()],
  ["jose", joseEngine],
];

/** Every (writer, reader) pair of engines, including each engine with itself. */
const pairs = () => engines().flatMap((w) => engines().map((r) => [w, r] as const));

/** The token with bit `bit` of byte `byte` of part `index` flipped. */
function flip(token: string, index: number, byte: number, bit: number): string {
  const parts = token.split(".");
  const bytes = Buffer.from(parts[index]!, "base64url");
  bytes[byte]! ^= 1 << bit;
  parts[index] = bytes.toString("base64url");
  return parts.join(".");
}

describe("JWE engines", () => {
  it("the node:crypto engine is present on Node", () => {
    expect(fastEngine).toBeDefined();
  });

  for (const enc of encs) {
    describe(enc, () => {
      it("each engine decrypts what the other (and itself) encrypts", async () => {
        const key = await deriveKey(SECRET, SALT, enc);
        for (const plaintext of ["", "{}", '{"sub":"42","name":"Zoë 🦊"}', "x".repeat(10_000)]) {
          for (const [[, writer], [, reader]] of pairs()) {
            const token = await writer.encrypt(te.encode(plaintext), key);
            expect(td.decode(await reader.decrypt(parseJwe(token), key))).toBe(plaintext);
          }
        }
      });

      it("both engines write the same protected header {alg, enc, kid}", async () => {
        const key = await deriveKey(SECRET, SALT, enc);
        const headers = await Promise.all(
          engines().map(async ([, e]) => (await e.encrypt(te.encode("{}"), key)).split(".")[0]),
        );
        expect(headers[0]).toBe(headers[1]);
        expect(headers[0]).toBe(b64json({ alg: "dir", enc, kid: key.kid }));
      });

      it("writes IVs and tags of the sizes the algorithm fixes, with an empty key segment", async () => {
        const key = await deriveKey(SECRET, SALT, enc);
        const [ivBytes, tagBytes] = enc === "A256GCM" ? [12, 16] : [16, 32];
        for (const [, e] of engines()) {
          const [, encryptedKey, iv, , tag] = (await e.encrypt(te.encode("{}"), key)).split(".");
          expect(encryptedKey).toBe("");
          expect(Buffer.from(iv!, "base64url")).toHaveLength(ivBytes);
          expect(Buffer.from(tag!, "base64url")).toHaveLength(tagBytes);
        }
      });

      it("writes tokens that plain jose decrypts with the raw key", async () => {
        const key = await deriveKey(SECRET, SALT, enc);
        for (const [, e] of engines()) {
          const token = await e.encrypt(te.encode('{"sub":"1"}'), key);
          const { plaintext, protectedHeader } = await compactDecrypt(token, key.key);
          expect(td.decode(plaintext)).toBe('{"sub":"1"}');
          expect(protectedHeader).toEqual({ alg: "dir", enc, kid: key.kid });
        }
      });

      it("a flipped bit anywhere in iv, ciphertext or tag makes both engines reject", async () => {
        const key = await deriveKey(SECRET, SALT, enc);
        const token = await requireFast().encrypt(te.encode('{"sub":"42","role":"user"}'), key);
        let checked = 0;
        for (const part of [2, 3, 4]) {
          const length = Buffer.from(token.split(".")[part]!, "base64url").length;
          for (let byte = 0; byte < length; byte++) {
            for (let bit = 0; bit < 8; bit++) {
              const tampered = parseJwe(flip(token, part, byte, bit));
              for (const [name, e] of engines()) {
                await expect(
                  e.decrypt(tampered, key),
                  `${name} part ${part} byte ${byte}`,
                ).rejects.toThrow();
                checked++;
              }
            }
          }
        }
        expect(checked).toBeGreaterThan(100);
      });

      it("both engines reject an altered protected header (it is the AAD)", async () => {
        const key = await deriveKey(SECRET, SALT, enc);
        const token = await requireFast().encrypt(te.encode("{}"), key);
        const [, ...rest] = token.split(".");
        for (const header of [
          { alg: "dir", enc, kid: key.kid, x: 1 },
          { alg: "dir", enc, kid: `${key.kid.slice(0, -1)}A` },
          { kid: key.kid, enc, alg: "dir" },
        ]) {
          const forged = parseJwe([b64json(header), ...rest].join("."));
          for (const [, e] of engines()) await expect(e.decrypt(forged, key)).rejects.toThrow();
        }
      });

      it("both engines reject the right token under another key", async () => {
        const key = await deriveKey(SECRET, SALT, enc);
        const wrongSalt = await deriveKey(SECRET, `${SALT}x`, enc);
        const wrongSecret = await deriveKey(`${SECRET}x`, SALT, enc);
        for (const [, writer] of engines()) {
          const jwe = parseJwe(await writer.encrypt(te.encode("{}"), key));
          for (const [, reader] of engines()) {
            await expect(reader.decrypt(jwe, wrongSalt)).rejects.toThrow();
            await expect(reader.decrypt(jwe, wrongSecret)).rejects.toThrow();
          }
        }
      });

      it("both engines reject a truncated tag or IV and non-base64url parts", async () => {
        const key = await deriveKey(SECRET, SALT, enc);
        const jwe = parseJwe(await requireFast().encrypt(te.encode("{}"), key));
        const variants = [
          { ...jwe, tag: jwe.tag.slice(0, -4) },
          { ...jwe, tag: "" },
          { ...jwe, iv: jwe.iv.slice(0, -4) },
          { ...jwe, iv: "" },
          { ...jwe, ciphertext: "" },
          { ...jwe, iv: `${jwe.iv.slice(0, -1)}+` },
          { ...jwe, ciphertext: `${jwe.ciphertext.slice(0, -1)}/` },
          { ...jwe, tag: `${jwe.tag.slice(0, -1)}!` },
        ];
        for (const variant of variants) {
          for (const [, e] of engines()) await expect(e.decrypt(variant, key)).rejects.toThrow();
        }
      });
    });
  }

  it("a key for one enc does not open a token of the other", async () => {
    const cbc = await deriveKey(SECRET, SALT, "A256CBC-HS512");
    const gcm = await deriveKey(SECRET, SALT, "A256GCM");
    for (const [, e] of engines()) {
      const token = parseJwe(await e.encrypt(te.encode("{}"), cbc));
      for (const [, r] of engines()) await expect(r.decrypt(token, gcm)).rejects.toThrow();
    }
  });
});

describe("parseJwe", () => {
  const valid = async () =>
    requireFast().encrypt(te.encode("{}"), await deriveKey(SECRET, SALT, "A256CBC-HS512"));
  const withHeader = (token: string, header: unknown) =>
    [b64json(header), ...token.split(".").slice(1)].join(".");

  it("splits a valid token and parses its header", async () => {
    const token = await valid();
    const [protectedHeader, , iv, ciphertext, tag] = token.split(".");
    const jwe = parseJwe(token);
    expect(jwe).toEqual({
      header: { alg: "dir", enc: "A256CBC-HS512", kid: expect.any(String) },
      protectedHeader,
      iv,
      ciphertext,
      tag,
    });
  });

  it("accepts A256GCM", async () => {
    const token = await valid();
    expect(parseJwe(withHeader(token, { alg: "dir", enc: "A256GCM" })).header.enc).toBe("A256GCM");
  });

  it("rejects any alg other than dir", async () => {
    const token = await valid();
    for (const alg of ["A256KW", "RSA-OAEP", "none", "DIR", "", undefined, null, 1]) {
      expect(() => parseJwe(withHeader(token, { alg, enc: "A256CBC-HS512" }))).toThrow();
    }
    expect(() => parseJwe(withHeader(token, { enc: "A256CBC-HS512" }))).toThrow();
  });

  it("rejects an unknown enc", async () => {
    const token = await valid();
    for (const enc of ["A128CBC-HS256", "A192CBC-HS384", "A128GCM", "A192GCM", "a256gcm", "", 7]) {
      expect(() => parseJwe(withHeader(token, { alg: "dir", enc }))).toThrow();
    }
    expect(() => parseJwe(withHeader(token, { alg: "dir" }))).toThrow();
  });

  it("rejects zip and crit headers", async () => {
    const token = await valid();
    const base = { alg: "dir", enc: "A256CBC-HS512" };
    expect(() => parseJwe(withHeader(token, { ...base, zip: "DEF" }))).toThrow();
    expect(() => parseJwe(withHeader(token, { ...base, crit: ["exp"], exp: 1 }))).toThrow();
    expect(() => parseJwe(withHeader(token, { ...base, crit: [] }))).toThrow();
  });

  it("rejects a non-empty encrypted key", async () => {
    const parts = (await valid()).split(".");
    parts[1] = b64("key");
    expect(() => parseJwe(parts.join("."))).toThrow();
  });

  it("rejects the wrong number of parts", async () => {
    const parts = (await valid()).split(".");
    for (const count of [1, 2, 3, 4, 6, 7]) {
      const list = count <= 5 ? parts.slice(0, count) : [...parts, ...parts.slice(0, count - 5)];
      expect(() => parseJwe(list.join("."))).toThrow();
    }
    expect(() => parseJwe("")).toThrow();
  });

  it("rejects a header that is not base64url", async () => {
    const token = await valid();
    const [header, ...rest] = token.split(".");
    const standard = Buffer.from(header!, "base64url").toString("base64");
    for (const bad of [
      `${standard}==`,
      `${header}=`,
      `${header!.slice(0, -1)}+`,
      `${header!.slice(0, -1)}/`,
      `${header} `,
      header + "A".repeat((5 - (header!.length % 4)) % 4 || 4),
      "%7B%7D",
    ]) {
      expect(() => parseJwe([bad, ...rest].join("."))).toThrow();
    }
  });

  it("rejects a header that is not a JSON object", async () => {
    const token = await valid();
    const rest = token.split(".").slice(1);
    for (const header of [b64("not json"), b64("[]"), b64("null"), b64('"dir"'), b64("42"), ""]) {
      expect(() => parseJwe([header, ...rest].join("."))).toThrow();
    }
    const invalidUtf8 = Buffer.from([0x7b, 0xff, 0x7d]).toString("base64url");
    expect(() => parseJwe([invalidUtf8, ...rest].join("."))).toThrow();
  });
});

describe("deriveKey", () => {
  const info = (salt: string) => `Auth.js Generated Encryption Key (${salt})`;
  const thumbprint = (key: Uint8Array) =>
    createHash(key.byteLength === 64 ? "sha512" : "sha256")
      .update(JSON.stringify({ k: b64(key), kty: "oct" }))
      .digest("base64url");

  it("derives the HKDF-SHA256 key with the Auth.js info string and its thumbprint", async () => {
    for (const enc of encs) {
      const length = enc === "A256GCM" ? 32 : 64;
      const derived = await deriveKey(SECRET, SALT, enc);
      const expected = new Uint8Array(hkdfSync("sha256", SECRET, SALT, info(SALT), length));
      expect(derived.enc).toBe(enc);
      expect(derived.key).toEqual(expected);
      expect(derived.kid).toBe(thumbprint(expected));
      expect(derived.kid).toHaveLength(length === 64 ? 86 : 43);
    }
  });

  it("defaults to A256CBC-HS512", async () => {
    expect((await deriveKey(SECRET, SALT)).enc).toBe("A256CBC-HS512");
    expect(await deriveKey(SECRET, SALT)).toBe(await deriveKey(SECRET, SALT, "A256CBC-HS512"));
  });

  it("is cached: the same inputs give the very same promise, then the very same key", async () => {
    const secret = `cache-${Math.random()}`;
    const first = deriveKey(secret, SALT);
    const second = deriveKey(secret, SALT);
    expect(second).toBe(first);
    const resolved = await first;
    expect(deriveKey(secret, SALT)).toBe(resolved);
    expect(await deriveKey(secret, SALT)).toBe(resolved);
  });

  it("gives different keys for a different salt, secret or enc", async () => {
    const base = await deriveKey(SECRET, SALT);
    const others = await Promise.all([
      deriveKey(SECRET, `__Secure-${SALT}`),
      deriveKey(`${SECRET}!`, SALT),
      deriveKey(SECRET, SALT, "A256GCM"),
    ]);
    for (const other of others) {
      expect(other).not.toBe(base);
      expect(other.kid).not.toBe(base.kid);
      expect(Buffer.from(other.key).equals(Buffer.from(base.key))).toBe(false);
    }
  });

  // Regression: the cache id once joined enc, salt and secret with NUL, so two different
  // (salt, secret) pairs could share one entry.
  it("keeps keys apart for inputs that only differ in where a NUL falls", async () => {
    const one = await deriveKey("c", "a\u0000b");
    const two = await deriveKey("b\u0000c", "a");
    expect(two).not.toBe(one);
    expect(two.kid).not.toBe(one.kid);
  });

  it("treats unicode secrets and salts as UTF-8", async () => {
    const derived = await deriveKey("sécret 🔑", "sel ✓");
    const expected = new Uint8Array(
      hkdfSync("sha256", Buffer.from("sécret 🔑"), Buffer.from("sel ✓"), info("sel ✓"), 64),
    );
    expect(derived.key).toEqual(expected);
  });
});

/**
 * Differential: every hostile spelling of a valid token gets the same verdict from both engines,
 * and no spelling other than the one written is accepted (a token has exactly one encoding).
 */
describe("both engines accept exactly the same inputs", () => {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

  /** Same bytes, but the unused low bits of the last character set (when it has any). */
  function nonCanonical(segment: string): string | undefined {
    const spare = segment.length % 4 === 2 ? 0x0f : segment.length % 4 === 3 ? 0x03 : 0;
    if (spare === 0) return undefined;
    const last = alphabet.indexOf(segment.at(-1)!);
    return segment.slice(0, -1) + alphabet[last | spare];
  }

  /** Re-spellings of one segment that a lenient base64 decoder reads as the same bytes. */
  function respellings(segment: string): string[] {
    const padding = "=".repeat((4 - (segment.length % 4)) % 4);
    const middle = Math.floor(segment.length / 2);
    const out = [
      `${segment}${padding || "===="}`,
      `${segment}==`,
      ` ${segment}`,
      `${segment} `,
      `${segment}\n`,
      `${segment.slice(0, middle)}\n${segment.slice(middle)}`,
      `${segment.slice(0, middle)}\t${segment.slice(middle)}`,
      `${segment.slice(0, middle)}\r\n${segment.slice(middle)}`,
      `${segment.slice(0, middle)}\f${segment.slice(middle)}`,
      segment.replace(/-/g, "+").replace(/_/g, "/"),
      Buffer.from(segment, "base64url").toString("base64"),
    ];
    const trailing = nonCanonical(segment);
    if (trailing) out.push(trailing, trailing + padding);
    return [...new Set(out)].filter((variant) => variant !== segment);
  }

  /** What an engine makes of a token string: its plaintext, or where it was refused. */
  async function verdict(e: JweEngine, token: string, key: DerivedKeyOf): Promise<string> {
    let jwe: ReturnType<typeof parseJwe>;
    try {
      jwe = parseJwe(token);
    } catch {
      return "malformed";
    }
    try {
      return `ok:${td.decode(await e.decrypt(jwe, key))}`;
    } catch {
      return "rejected";
    }
  }

  type DerivedKeyOf = Awaited<ReturnType<typeof deriveKey>>;

  for (const enc of encs) {
    it(`${enc}: same verdict from both, and only the written spelling opens`, async () => {
      const key = await deriveKey(SECRET, SALT, enc);
      // Plaintext lengths that leave 0, 1 and 2 spare bytes in the last base64 quantum.
      for (const plaintext of ['{"sub":"1"}', '{"sub":"12"}', '{"sub":"123"}']) {
        const token = await requireFast().encrypt(te.encode(plaintext), key);
        const parts = token.split(".");
        let compared = 0;
        for (const index of [0, 2, 3, 4]) {
          for (const variant of respellings(parts[index]!)) {
            const hostile = parts.map((part, i) => (i === index ? variant : part)).join(".");
            const fast = await verdict(requireFast(), hostile, key);
            const jose = await verdict(joseEngine, hostile, key);
            expect(jose, `part ${index} as ${JSON.stringify(variant)}`).toBe(fast);
            expect(fast, `part ${index} as ${JSON.stringify(variant)}`).not.toMatch(/^ok:/);
            compared++;
          }
        }
        expect(compared).toBeGreaterThan(30);
        expect(await verdict(joseEngine, token, key)).toBe(`ok:${plaintext}`);
      }
    });

    it(`${enc}: each engine, handed parsed parts directly, refuses re-spelled iv, ciphertext and tag`, async () => {
      const key = await deriveKey(SECRET, SALT, enc);
      const jwe = parseJwe(await requireFast().encrypt(te.encode('{"sub":"1"}'), key));
      for (const field of ["iv", "ciphertext", "tag"] as const) {
        for (const variant of respellings(jwe[field])) {
          for (const [name, e] of engines()) {
            await expect(
              e.decrypt({ ...jwe, [field]: variant }, key),
              `${name}: ${field} as ${JSON.stringify(variant)}`,
            ).rejects.toThrow();
          }
        }
      }
    });
  }

  it("parseJwe refuses a header with non-canonical trailing bits", async () => {
    const key = await deriveKey(SECRET, SALT, "A256CBC-HS512");
    // Pad the header JSON until its base64url form has spare bits in the last character.
    for (const pad of ["", " ", "  "]) {
      const header = b64(`{"alg":"dir","enc":"A256CBC-HS512"${pad}}`);
      const spelled = nonCanonical(header);
      if (!spelled) continue;
      const rest = (await requireFast().encrypt(te.encode("{}"), key)).split(".").slice(1);
      expect(() => parseJwe([header, ...rest].join("."))).not.toThrow();
      expect(() => parseJwe([spelled, ...rest].join("."))).toThrow();
    }
  });
});
