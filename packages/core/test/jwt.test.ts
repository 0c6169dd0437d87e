import { createHash, hkdfSync } from "node:crypto";
import { JWTSessionError, MissingSecret } from "@gatehousejs/core/errors";
import { DEFAULT_MAX_AGE, decode, encode, getToken, type JWT } from "@gatehousejs/core/jwt";
import {
  base64url,
  CompactEncrypt,
  calculateJwkThumbprint,
  decodeProtectedHeader,
  EncryptJWT,
} from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";

const SECRET = "jwt-test-secret-0123456789abcdef";
const OTHER = "another-secret-fedcba9876543210";
const SALT = "authjs.session-token";
const SECURE_SALT = "__Secure-authjs.session-token";

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The key Auth.js derives, computed here with node:crypto only. */
function hkdfKey(secret: string, salt: string, length: 64 | 32 = 64): Uint8Array {
  return new Uint8Array(
    hkdfSync("sha256", secret, salt, `Auth.js Generated Encryption Key (${salt})`, length),
  );
}

/** RFC 7638 thumbprint of an `oct` key, computed by hand: SHA-512 for 64 bytes, SHA-256 for 32. */
function thumbprint(key: Uint8Array): string {
  const json = JSON.stringify({ k: Buffer.from(key).toString("base64url"), kty: "oct" });
  return createHash(key.byteLength === 64 ? "sha512" : "sha256")
    .update(json)
    .digest("base64url");
}

interface HandBuilt {
  secret?: string;
  salt?: string;
  enc?: "A256CBC-HS512" | "A256GCM";
  kid?: boolean;
}

/** A token built with jose alone, so its claims (and header) are exactly what the test says. */
async function handBuilt(claims: Record<string, unknown>, options: HandBuilt = {}) {
  const { secret = SECRET, salt = SALT, enc = "A256CBC-HS512", kid = true } = options;
  const key = hkdfKey(secret, salt, enc === "A256GCM" ? 32 : 64);
  return new EncryptJWT(claims)
    .setProtectedHeader({ alg: "dir", enc, ...(kid ? { kid: thumbprint(key) } : {}) })
    .encrypt(key);
}

/** A compact JWE with an arbitrary plaintext (not necessarily a JSON object). */
async function rawJwe(plaintext: string, secret = SECRET, salt = SALT) {
  const key = hkdfKey(secret, salt);
  return new CompactEncrypt(new TextEncoder().encode(plaintext))
    .setProtectedHeader({ alg: "dir", enc: "A256CBC-HS512", kid: thumbprint(key) })
    .encrypt(key);
}

/** The token with one bit of the decoded bytes of part `index` flipped. */
function flipBit(token: string, index: number, byte = 0): string {
  const parts = token.split(".");
  const bytes = Buffer.from(parts[index]!, "base64url");
  bytes[byte]! ^= 0x01;
  parts[index] = bytes.toString("base64url");
  return parts.join(".");
}

function decodedHeader(token: string): Record<string, unknown> {
  const [header] = token.split(".");
  return JSON.parse(Buffer.from(header!, "base64url").toString("utf8"));
}

async function rejects(promise: Promise<unknown>) {
  await expect(promise).rejects.toBeInstanceOf(JWTSessionError);
}

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
});

describe("encode", () => {
  it("produces a compact JWE with header exactly {alg: dir, enc: A256CBC-HS512, kid}", async () => {
    const token = await encode({ token: { sub: "42" }, secret: SECRET, salt: SALT });
    const parts = token.split(".");
    expect(parts).toHaveLength(5);
    expect(parts[1]).toBe("");
    expect(Object.keys(decodedHeader(token))).toEqual(["alg", "enc", "kid"]);
    expect(decodedHeader(token)).toEqual({
      alg: "dir",
      enc: "A256CBC-HS512",
      kid: expect.any(String),
    });
    // A256CBC-HS512: 16-byte IV, 32-byte tag.
    expect(Buffer.from(parts[2]!, "base64url")).toHaveLength(16);
    expect(Buffer.from(parts[4]!, "base64url")).toHaveLength(32);
  });

  it("uses the RFC 7638 SHA-512 thumbprint of the HKDF-derived key as kid", async () => {
    for (const salt of [SALT, SECURE_SALT, "custom salt ✓"]) {
      const token = await encode({ token: {}, secret: SECRET, salt });
      const key = hkdfKey(SECRET, salt);
      const { kid } = decodedHeader(token);
      expect(kid).toHaveLength(86);
      expect(kid).toBe(thumbprint(key));
      expect(kid).toBe(
        await calculateJwkThumbprint({ kty: "oct", k: base64url.encode(key) }, "sha512"),
      );
    }
  });

  it("encrypts with the HKDF key derived from secret and salt (jose decrypts with it)", async () => {
    const token = await encode({ token: { sub: "42" }, secret: SECRET, salt: SALT });
    const { compactDecrypt } = await import("jose");
    const { plaintext } = await compactDecrypt(token, hkdfKey(SECRET, SALT));
    expect(JSON.parse(new TextDecoder().decode(plaintext))).toMatchObject({ sub: "42" });
    await expect(compactDecrypt(token, hkdfKey(SECRET, SECURE_SALT))).rejects.toThrow();
  });

  it("sets iat, exp and jti, overwriting same-named input claims", async () => {
    const before = nowSeconds();
    const token = await encode({
      token: { sub: "42", name: "Ada", iat: 1, exp: 2, jti: "mine" },
      secret: SECRET,
      salt: SALT,
    });
    const after = nowSeconds();
    const claims = (await decode({ token, secret: SECRET, salt: SALT }))!;
    expect(claims.sub).toBe("42");
    expect(claims.name).toBe("Ada");
    expect(claims.iat).toBeGreaterThanOrEqual(before);
    expect(claims.iat).toBeLessThanOrEqual(after);
    expect(claims.jti).not.toBe("mine");
    expect(claims.jti).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  it("gives every token a fresh jti and IV", async () => {
    const a = await encode({ token: { sub: "1" }, secret: SECRET, salt: SALT });
    const b = await encode({ token: { sub: "1" }, secret: SECRET, salt: SALT });
    expect(a.split(".")[2]).not.toBe(b.split(".")[2]);
    const [ca, cb] = await Promise.all([
      decode({ token: a, secret: SECRET, salt: SALT }),
      decode({ token: b, secret: SECRET, salt: SALT }),
    ]);
    expect(ca!.jti).not.toBe(cb!.jti);
  });

  it("expires tokens after 30 days by default", async () => {
    expect(DEFAULT_MAX_AGE).toBe(30 * 24 * 60 * 60);
    const token = await encode({ token: {}, secret: SECRET, salt: SALT });
    const claims = (await decode({ token, secret: SECRET, salt: SALT }))!;
    expect(claims.exp! - claims.iat!).toBe(2_592_000);
  });

  it("honours a custom maxAge", async () => {
    const token = await encode({ token: {}, secret: SECRET, salt: SALT, maxAge: 60 });
    const claims = (await decode({ token, secret: SECRET, salt: SALT }))!;
    expect(claims.exp! - claims.iat!).toBe(60);
  });

  it("encodes an absent token as an object holding only the registered claims", async () => {
    const token = await encode({ secret: SECRET, salt: SALT });
    const claims = (await decode({ token, secret: SECRET, salt: SALT }))!;
    expect(Object.keys(claims).sort()).toEqual(["exp", "iat", "jti"]);
  });

  it("encrypts with the first secret of a list", async () => {
    const token = await encode({ token: { sub: "1" }, secret: [SECRET, OTHER], salt: SALT });
    expect(decodedHeader(token).kid).toBe(thumbprint(hkdfKey(SECRET, SALT)));
    expect(await decode({ token, secret: SECRET, salt: SALT })).toMatchObject({ sub: "1" });
    await rejects(decode({ token, secret: OTHER, salt: SALT }));
  });

  it("throws MissingSecret without a secret", async () => {
    for (const secret of ["", [], [""], undefined]) {
      await expect(
        encode({ token: {}, secret: secret as string, salt: SALT }),
      ).rejects.toBeInstanceOf(MissingSecret);
    }
  });
});

describe("decode", () => {
  it("round-trips unicode and nested claims", async () => {
    const payload = { sub: "42", name: "Zoë 🦊 名前", nested: { list: [1, "two", null] } };
    const token = await encode({ token: payload, secret: SECRET, salt: SALT });
    expect(await decode({ token, secret: SECRET, salt: SALT })).toMatchObject(payload);
  });

  it("returns null for an empty or missing token", async () => {
    expect(await decode({ token: "", secret: SECRET, salt: SALT })).toBeNull();
    expect(await decode({ secret: SECRET, salt: SALT })).toBeNull();
  });

  it("throws JWTSessionError for garbage", async () => {
    for (const garbage of [
      "garbage",
      "a.b.c",
      "a.b.c.d.e",
      "....",
      "!!!!.!!.!!.!!.!!",
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig",
    ]) {
      await rejects(decode({ token: garbage, secret: SECRET, salt: SALT }));
    }
  });

  it("throws JWTSessionError for a truncated token", async () => {
    const token = await encode({ token: { sub: "1" }, secret: SECRET, salt: SALT });
    await rejects(decode({ token: token.slice(0, -4), secret: SECRET, salt: SALT }));
    await rejects(
      decode({ token: token.slice(0, token.lastIndexOf(".")), secret: SECRET, salt: SALT }),
    );
    await rejects(decode({ token: token.slice(0, token.length / 2), secret: SECRET, salt: SALT }));
  });

  it("throws JWTSessionError when one bit of iv, ciphertext or tag is flipped", async () => {
    const token = await encode({ token: { sub: "1" }, secret: SECRET, salt: SALT });
    const ctLength = Buffer.from(token.split(".")[3]!, "base64url").length;
    for (const [part, byte] of [
      [2, 0],
      [2, 15],
      [3, 0],
      [3, ctLength - 1],
      [4, 0],
      [4, 31],
    ] as const) {
      await rejects(decode({ token: flipBit(token, part, byte), secret: SECRET, salt: SALT }));
    }
  });

  it("throws JWTSessionError when the protected header is altered", async () => {
    const token = await encode({ token: { sub: "1" }, secret: SECRET, salt: SALT });
    const [, ...rest] = token.split(".");
    const header = decodedHeader(token);
    const variants = [
      { ...header, extra: 1 },
      { ...header, kid: thumbprint(hkdfKey(OTHER, SALT)) },
      { alg: header.alg, enc: header.enc, kid: header.kid, cty: "JWT" },
      { ...header, enc: "A256GCM" },
      { ...header, alg: "A256KW" },
    ];
    for (const variant of variants) {
      const forged = [Buffer.from(JSON.stringify(variant)).toString("base64url"), ...rest].join(
        ".",
      );
      await rejects(decode({ token: forged, secret: [SECRET, OTHER], salt: SALT }));
    }
  });

  // Regression (issue 9, item 11): spare low bits in the last character of a segment, padding
  // and whitespace once gave a second spelling of the same token.
  it("accepts a token only as written: no second spelling of any segment", async () => {
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    for (const token of [
      await encode({ token: { sub: "1" }, secret: SECRET, salt: SALT }),
      await handBuilt({ sub: "1" }, { enc: "A256GCM" }),
    ]) {
      const parts = token.split(".");
      let respelled = 0;
      for (const index of [2, 3, 4]) {
        const part = parts[index]!;
        const spare = part.length % 4 === 2 ? 0x0f : part.length % 4 === 3 ? 0x03 : 0;
        const variants = [`${part}=`, `${part} `, `${part.slice(0, 4)}\n${part.slice(4)}`];
        if (spare)
          variants.push(part.slice(0, -1) + alphabet[alphabet.indexOf(part.at(-1)!) | spare]);
        for (const variant of variants) {
          const respelledToken = parts.map((p, i) => (i === index ? variant : p)).join(".");
          await rejects(decode({ token: respelledToken, secret: SECRET, salt: SALT }));
          respelled++;
        }
      }
      expect(respelled).toBeGreaterThanOrEqual(10);
      expect(await decode({ token, secret: SECRET, salt: SALT })).toMatchObject({ sub: "1" });
    }
  });

  it("throws JWTSessionError for the wrong salt or the wrong secret", async () => {
    const token = await encode({ token: { sub: "1" }, secret: SECRET, salt: SALT });
    await rejects(decode({ token, secret: SECRET, salt: SECURE_SALT }));
    await rejects(decode({ token, secret: OTHER, salt: SALT }));
  });

  it("throws MissingSecret without a secret", async () => {
    const token = await encode({ token: { sub: "1" }, secret: SECRET, salt: SALT });
    for (const secret of ["", [], undefined]) {
      await expect(decode({ token, secret: secret as string, salt: SALT })).rejects.toBeInstanceOf(
        MissingSecret,
      );
    }
  });

  it("rejects a payload that is not a JSON object", async () => {
    for (const plaintext of ['"a string"', "[1,2]", "42", "null", "not json", "\uFFFD{"]) {
      await rejects(decode({ token: await rawJwe(plaintext), secret: SECRET, salt: SALT }));
    }
  });

  it("rejects non-numeric exp, nbf or iat claims", async () => {
    for (const claim of ["exp", "nbf", "iat"]) {
      const token = await rawJwe(JSON.stringify({ sub: "1", [claim]: "soon" }));
      await rejects(decode({ token, secret: SECRET, salt: SALT }));
    }
  });

  describe("clock tolerance of 15 seconds", () => {
    it("accepts a token that expired 10 seconds ago", async () => {
      const token = await handBuilt({ sub: "1", exp: nowSeconds() - 10 });
      expect(await decode({ token, secret: SECRET, salt: SALT })).toMatchObject({ sub: "1" });
    });

    it("rejects a token that expired 16 seconds ago", async () => {
      const token = await handBuilt({ sub: "1", exp: nowSeconds() - 16 });
      await rejects(decode({ token, secret: SECRET, salt: SALT }));
    });

    it("rejects a token that expired long ago", async () => {
      const token = await handBuilt({ sub: "1", exp: 1_000_000 });
      await rejects(decode({ token, secret: SECRET, salt: SALT }));
    });

    it("keeps an encoded token valid for maxAge + 15 s and no longer", async () => {
      vi.useFakeTimers({ toFake: ["Date"] });
      const start = new Date("2030-01-01T00:00:00Z");
      vi.setSystemTime(start);
      const token = await encode({ token: { sub: "1" }, secret: SECRET, salt: SALT, maxAge: 60 });
      vi.setSystemTime(start.getTime() + 74_000);
      expect(await decode({ token, secret: SECRET, salt: SALT })).toMatchObject({ sub: "1" });
      vi.setSystemTime(start.getTime() + 75_000);
      await rejects(decode({ token, secret: SECRET, salt: SALT }));
    });

    it("accepts nbf up to 15 seconds in the future and rejects beyond", async () => {
      const soon = await handBuilt({ sub: "1", nbf: nowSeconds() + 10 });
      expect(await decode({ token: soon, secret: SECRET, salt: SALT })).toMatchObject({ sub: "1" });
      const later = await handBuilt({ sub: "1", nbf: nowSeconds() + 60 });
      await rejects(decode({ token: later, secret: SECRET, salt: SALT }));
    });
  });

  describe("secret lists", () => {
    it("decrypts with whichever secret of the list matches the kid", async () => {
      const old = await encode({ token: { sub: "old" }, secret: OTHER, salt: SALT });
      expect(await decode({ token: old, secret: [SECRET, OTHER], salt: SALT })).toMatchObject({
        sub: "old",
      });
      expect(
        await decode({ token: old, secret: ["a", "b", OTHER, "c"], salt: SALT }),
      ).toMatchObject({ sub: "old" });
      await rejects(decode({ token: old, secret: [SECRET, "third"], salt: SALT }));
    });

    it("decrypts a token without kid with any secret of the list (not only the first)", async () => {
      const token = await handBuilt({ sub: "no-kid" }, { secret: OTHER, kid: false });
      expect(decodeProtectedHeader(token).kid).toBeUndefined();
      expect(await decode({ token, secret: [SECRET, OTHER], salt: SALT })).toMatchObject({
        sub: "no-kid",
      });
      expect(await decode({ token, secret: [OTHER, SECRET], salt: SALT })).toMatchObject({
        sub: "no-kid",
      });
      await rejects(decode({ token, secret: [SECRET, "third"], salt: SALT }));
    });

    it("still rejects a token without kid whose tag was tampered with", async () => {
      const token = await handBuilt({ sub: "no-kid" }, { kid: false });
      await rejects(decode({ token: flipBit(token, 4), secret: [OTHER, SECRET], salt: SALT }));
    });
  });

  describe("A256GCM tokens", () => {
    it("decrypts a token made with a 32-byte key and a SHA-256 thumbprint", async () => {
      const token = await handBuilt({ sub: "gcm" }, { enc: "A256GCM" });
      const { kid } = decodeProtectedHeader(token);
      expect(kid).toHaveLength(43);
      expect(kid).toBe(
        await calculateJwkThumbprint(
          { kty: "oct", k: base64url.encode(hkdfKey(SECRET, SALT, 32)) },
          "sha256",
        ),
      );
      expect(await decode({ token, secret: SECRET, salt: SALT })).toMatchObject({ sub: "gcm" });
      expect(await decode({ token, secret: [OTHER, SECRET], salt: SALT })).toMatchObject({
        sub: "gcm",
      });
    });

    it("decrypts an A256GCM token without kid", async () => {
      const token = await handBuilt({ sub: "gcm" }, { enc: "A256GCM", kid: false, secret: OTHER });
      expect(await decode({ token, secret: [SECRET, OTHER], salt: SALT })).toMatchObject({
        sub: "gcm",
      });
    });

    it("rejects a tampered A256GCM token and one under the wrong salt", async () => {
      const token = await handBuilt({ sub: "gcm" }, { enc: "A256GCM" });
      await rejects(decode({ token: flipBit(token, 3), secret: SECRET, salt: SALT }));
      await rejects(decode({ token: flipBit(token, 4), secret: SECRET, salt: SALT }));
      await rejects(decode({ token: flipBit(token, 2), secret: SECRET, salt: SALT }));
      await rejects(decode({ token, secret: SECRET, salt: SECURE_SALT }));
    });
  });
});

describe("getToken", () => {
  const mint = (claims: JWT, salt = SALT, secret: string | string[] = SECRET) =>
    encode({ token: claims, secret, salt });

  const withHeaders = (headers: Record<string, string>) =>
    new Request("http://localhost/api", { headers });

  it("reads the session cookie", async () => {
    const token = await mint({ sub: "cookie" });
    const req = withHeaders({ cookie: `other=1; authjs.session-token=${token}; more=2` });
    expect(await getToken({ req, secret: SECRET })).toMatchObject({ sub: "cookie" });
  });

  it("returns null when there is no token at all", async () => {
    expect(await getToken({ req: withHeaders({}), secret: SECRET })).toBeNull();
    expect(await getToken({ req: withHeaders({ cookie: "a=b" }), secret: SECRET })).toBeNull();
  });

  it("reassembles chunked cookies in numeric order", async () => {
    const token = await mint({ sub: "chunked", blob: "x".repeat(9000) });
    const size = Math.ceil(token.length / 3);
    const chunks = [0, 1, 2].map((i) => token.slice(i * size, (i + 1) * size));
    const cookie = chunks.map((c, i) => `authjs.session-token.${i}=${c}`).join("; ");
    expect(await getToken({ req: withHeaders({ cookie }), secret: SECRET })).toMatchObject({
      sub: "chunked",
    });
  });

  it("reassembles chunks given out of order in the header", async () => {
    const token = await mint({ sub: "shuffled", blob: "y".repeat(13000) });
    const size = Math.ceil(token.length / 4);
    const named = [0, 1, 2, 3].map(
      (i) => `authjs.session-token.${i}=${token.slice(i * size, (i + 1) * size)}`,
    );
    const cookie = [named[2], "x=1", named[0], named[3], named[1]].join("; ");
    expect(await getToken({ req: withHeaders({ cookie }), secret: SECRET })).toMatchObject({
      sub: "shuffled",
    });
  });

  it("orders chunks numerically past nine (.10 after .9, not after .1)", async () => {
    const token = await mint({ sub: "eleven", blob: "z".repeat(30000) });
    const size = Math.ceil(token.length / 11);
    const named = Array.from(
      { length: 11 },
      (_, i) => `authjs.session-token.${i}=${token.slice(i * size, (i + 1) * size)}`,
    );
    const cookie = [...named].reverse().join("; ");
    expect(await getToken({ req: withHeaders({ cookie }), secret: SECRET })).toMatchObject({
      sub: "eleven",
    });
  });

  it("does not read look-alike cookie names as the session token or its chunks", async () => {
    const token = await mint({ sub: "evil" });
    const half = Math.ceil(token.length / 2);
    for (const cookie of [
      `authjs.session-token-evil=${token}`,
      `authjs.session-tokenX=${token}`,
      `authjs.session-token.evil=${token}`,
      `xauthjs.session-token=${token}`,
      `authjs.session-token-evil.0=${token.slice(0, half)}; authjs.session-token-evil.1=${token.slice(half)}`,
    ]) {
      expect(await getToken({ req: withHeaders({ cookie }), secret: SECRET })).toBeNull();
    }
  });

  it("ignores look-alike cookies next to the real one", async () => {
    const real = await mint({ sub: "real" });
    const evil = await mint({ sub: "evil" });
    const cookie = `authjs.session-token-evil=${evil}; authjs.session-token=${real}; authjs.session-tokenX=${evil}`;
    expect(await getToken({ req: withHeaders({ cookie }), secret: SECRET })).toMatchObject({
      sub: "real",
    });
  });

  it("reads an Authorization: Bearer token", async () => {
    const token = await mint({ sub: "bearer" });
    const req = withHeaders({ authorization: `Bearer ${token}` });
    expect(await getToken({ req, secret: SECRET })).toMatchObject({ sub: "bearer" });
  });

  it("percent-decodes the Bearer token", async () => {
    const token = await mint({ sub: "encoded" });
    const req = withHeaders({ authorization: `Bearer ${token.replaceAll(".", "%2E")}` });
    expect(await getToken({ req, secret: SECRET })).toMatchObject({ sub: "encoded" });
    expect(await getToken({ req, raw: true })).toBe(token);
  });

  it("returns null for a Bearer token with malformed percent-encoding", async () => {
    const token = await mint({ sub: "x" });
    for (const bad of [`${token}%`, `${token}%E0%A4%A`, `%zz${token}`]) {
      const req = withHeaders({ authorization: `Bearer ${bad}` });
      expect(await getToken({ req, secret: SECRET })).toBeNull();
      expect(await getToken({ req, raw: true })).toBeNull();
    }
  });

  it("prefers the cookie over the Authorization header", async () => {
    const fromCookie = await mint({ sub: "cookie" });
    const fromHeader = await mint({ sub: "header" });
    const req = withHeaders({
      cookie: `authjs.session-token=${fromCookie}`,
      authorization: `Bearer ${fromHeader}`,
    });
    expect(await getToken({ req, secret: SECRET })).toMatchObject({ sub: "cookie" });
  });

  it("reads the __Secure- cookie, with its name as salt, when secureCookie is true", async () => {
    const secureToken = await mint({ sub: "secure" }, SECURE_SALT);
    const plainToken = await mint({ sub: "plain" });
    const req = withHeaders({
      cookie: `authjs.session-token=${plainToken}; __Secure-authjs.session-token=${secureToken}`,
    });
    expect(await getToken({ req, secret: SECRET, secureCookie: true })).toMatchObject({
      sub: "secure",
    });
    expect(await getToken({ req, secret: SECRET, secureCookie: false })).toMatchObject({
      sub: "plain",
    });
    // A token minted for the plain name does not decrypt under the secure name's salt.
    const swapped = withHeaders({ cookie: `__Secure-authjs.session-token=${plainToken}` });
    expect(await getToken({ req: swapped, secret: SECRET, secureCookie: true })).toBeNull();
  });

  it("defaults secureCookie from an https AUTH_URL", async () => {
    const secureToken = await mint({ sub: "secure" }, SECURE_SALT);
    const plainToken = await mint({ sub: "plain" });
    const req = withHeaders({
      cookie: `authjs.session-token=${plainToken}; __Secure-authjs.session-token=${secureToken}`,
    });
    vi.stubEnv("NEXTAUTH_URL", undefined);
    vi.stubEnv("AUTH_URL", "https://app.example/auth");
    expect(await getToken({ req, secret: SECRET })).toMatchObject({ sub: "secure" });
    expect(await getToken({ req, secret: SECRET, secureCookie: false })).toMatchObject({
      sub: "plain",
    });
    vi.stubEnv("AUTH_URL", "http://localhost:3000");
    expect(await getToken({ req, secret: SECRET })).toMatchObject({ sub: "plain" });
    vi.stubEnv("AUTH_URL", undefined);
    expect(await getToken({ req, secret: SECRET })).toMatchObject({ sub: "plain" });
  });

  it("uses a custom cookie name, as salt by default", async () => {
    const token = await mint({ sub: "custom" }, "my-session");
    const req = withHeaders({ cookie: `my-session=${token}` });
    expect(await getToken({ req, secret: SECRET, cookieName: "my-session" })).toMatchObject({
      sub: "custom",
    });
    expect(await getToken({ req, secret: SECRET })).toBeNull();
  });

  it("uses a custom salt", async () => {
    const token = await mint({ sub: "salted" }, "pepper");
    const req = withHeaders({ cookie: `authjs.session-token=${token}` });
    expect(await getToken({ req, secret: SECRET, salt: "pepper" })).toMatchObject({
      sub: "salted",
    });
    expect(await getToken({ req, secret: SECRET })).toBeNull();
  });

  it("returns the raw token string without needing a secret", async () => {
    const token = await mint({ sub: "raw" });
    const req = withHeaders({ cookie: `authjs.session-token=${token}` });
    expect(await getToken({ req, raw: true })).toBe(token);
    expect(await getToken({ req: withHeaders({}), raw: true })).toBeNull();
  });

  it("throws MissingSecret when a token is present but no secret is given", async () => {
    const token = await mint({ sub: "x" });
    const req = withHeaders({ cookie: `authjs.session-token=${token}` });
    await expect(getToken({ req })).rejects.toBeInstanceOf(MissingSecret);
    await expect(getToken({ req, secret: "" })).rejects.toBeInstanceOf(MissingSecret);
    await expect(getToken({ req, secret: [] })).rejects.toBeInstanceOf(MissingSecret);
  });

  it("returns null for an invalid, tampered, foreign or expired token", async () => {
    const good = await mint({ sub: "x" });
    const expired = await handBuilt({ sub: "x", exp: nowSeconds() - 60 });
    for (const value of [
      "garbage",
      flipBit(good, 4),
      await mint({ sub: "x" }, SALT, OTHER),
      expired,
    ]) {
      const req = withHeaders({ cookie: `authjs.session-token=${value}` });
      expect(await getToken({ req, secret: SECRET })).toBeNull();
    }
  });

  it("decodes with any secret of a list", async () => {
    const token = await mint({ sub: "rotated" }, SALT, OTHER);
    const req = withHeaders({ cookie: `authjs.session-token=${token}` });
    expect(await getToken({ req, secret: [SECRET, OTHER] })).toMatchObject({ sub: "rotated" });
  });

  it("accepts a plain-object request with a headers record", async () => {
    const token = await mint({ sub: "plain-object" });
    expect(
      await getToken({
        req: { headers: { cookie: `authjs.session-token=${token}` } },
        secret: SECRET,
      }),
    ).toMatchObject({ sub: "plain-object" });
    expect(
      await getToken({ req: { headers: { authorization: `Bearer ${token}` } }, secret: SECRET }),
    ).toMatchObject({ sub: "plain-object" });
    expect(await getToken({ req: { headers: {} }, secret: SECRET })).toBeNull();
  });

  // Regression: a plain headers record used to be read case-sensitively.
  it("reads header names of a plain-object request case-insensitively", async () => {
    const token = await mint({ sub: "capitalised" });
    expect(
      await getToken({
        req: { headers: { Cookie: `authjs.session-token=${token}` } },
        secret: SECRET,
      }),
    ).toMatchObject({ sub: "capitalised" });
    expect(
      await getToken({ req: { headers: { Authorization: `Bearer ${token}` } }, secret: SECRET }),
    ).toMatchObject({ sub: "capitalised" });
  });

  it("accepts a request whose headers are a Headers object", async () => {
    const token = await mint({ sub: "headers" });
    const headers = new Headers({ cookie: `authjs.session-token=${token}` });
    expect(await getToken({ req: { headers }, secret: SECRET })).toMatchObject({ sub: "headers" });
  });

  it("uses a custom decode with the token, secret and salt", async () => {
    const decoder = vi.fn(async () => ({ sub: "custom-decode" }));
    const req = withHeaders({ cookie: "__Secure-authjs.session-token=opaque-value" });
    expect(await getToken({ req, secret: SECRET, secureCookie: true, decode: decoder })).toEqual({
      sub: "custom-decode",
    });
    expect(decoder).toHaveBeenCalledOnce();
    expect(decoder).toHaveBeenCalledWith({
      token: "opaque-value",
      secret: SECRET,
      salt: SECURE_SALT,
    });
  });

  it("returns null when a custom decode throws", async () => {
    const req = withHeaders({ cookie: "authjs.session-token=opaque" });
    const decoder = vi.fn(async () => {
      throw new Error("nope");
    });
    expect(await getToken({ req, secret: SECRET, decode: decoder })).toBeNull();
  });
});
