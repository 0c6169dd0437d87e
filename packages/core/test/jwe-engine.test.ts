/**
 * The JWE engine beyond a single token: its cache of parsed headers stays bounded however many
 * distinct valid headers arrive, and the runtimes without `node:crypto` or `Buffer` take the
 * WebCrypto and plain-JavaScript paths with the same results.
 */
import { createCipheriv, hkdfSync, randomBytes } from "node:crypto";
import { JWTSessionError } from "@gatehousejs/core/errors";
import { decode, encode } from "@gatehousejs/core/jwt";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fastEngine, joseEngine, parseJwe } from "../src/lib/crypto/jwe.js";
import { deriveKey } from "../src/lib/crypto/keys.js";

const b64json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** A token shape with a valid header; parseJwe does not look past the header. */
const withHeader = (header: Record<string, unknown>) =>
  `${b64json({ alg: "dir", enc: "A256GCM", ...header })}..AAAAAAAAAAAAAAAA.AA.AAAAAAAAAAAAAAAAAAAAAA`;

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  vi.resetModules();
});

describe("the parsed-header cache", () => {
  it("serves a repeated header from memory: the very same frozen object", () => {
    const token = withHeader({ kid: `repeat-${Math.random()}` });
    const first = parseJwe(token).header;
    expect(parseJwe(token).header).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(() => {
      (first as Record<string, unknown>).alg = "none";
    }).toThrow(TypeError);
  });

  it("keeps a header across a hundred others, and lets it go under thousands", () => {
    const token = withHeader({ kid: `kept-${Math.random()}` });
    const first = parseJwe(token).header;
    for (let i = 0; i < 100; i++) parseJwe(withHeader({ kid: `other-${i}-${Math.random()}` }));
    expect(parseJwe(token).header).toBe(first);
    // Many distinct valid headers (an attacker can mint them freely): the cache must not grow
    // with them, so the first header has been dropped by the time they are through.
    for (let i = 0; i < 5000; i++) parseJwe(withHeader({ kid: `flood-${i}-${Math.random()}` }));
    const again = parseJwe(token).header;
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });

  it("does not keep invalid headers: each is checked, and refused, every time", () => {
    const bad = withHeader({ zip: "DEF" });
    for (let i = 0; i < 3; i++) expect(() => parseJwe(bad)).toThrow(/unsupported/);
  });
});

describe("a runtime without node:crypto", () => {
  async function withoutNodeCrypto(getBuiltinModule: unknown) {
    vi.resetModules();
    type Loader = { getBuiltinModule: (id: string) => unknown };
    vi.spyOn(process as unknown as Loader, "getBuiltinModule").mockImplementation(
      getBuiltinModule as Loader["getBuiltinModule"],
    );
    const node = await import("../src/lib/crypto/node.js");
    const jwe = await import("../src/lib/crypto/jwe.js");
    const jwt = await import("../src/lib/jwt.js");
    return { node, jwe, jwt };
  }

  it.each([
    ["no such module", () => undefined],
    [
      "a loader that throws",
      () => {
        throw new Error("no node:crypto here");
      },
    ],
  ])("%s: the jose engine is used, and tokens still round-trip", async (_, loader) => {
    const { node, jwe, jwt } = await withoutNodeCrypto(loader);
    expect(node.nodeCrypto).toBeUndefined();
    expect(jwe.fastEngine).toBeUndefined();
    expect(jwe.engine).toBe(jwe.joseEngine);
    const secret = "a-secret-that-is-long-enough-0123456789";
    const token = await jwt.encode({ token: { sub: "42" }, secret, salt: "s" });
    expect(await jwt.decode({ token, secret, salt: "s" })).toMatchObject({ sub: "42" });
    // What the jose engine wrote, the node:crypto engine (the one this file imported) reads.
    const { decode } = await import("@gatehousejs/core/jwt");
    vi.resetModules();
    expect(await decode({ token, secret, salt: "s" })).toMatchObject({ sub: "42" });
  });

  it("with node:crypto, the fast engine is the one in use", async () => {
    vi.resetModules();
    const jwe = await import("../src/lib/crypto/jwe.js");
    expect(jwe.fastEngine).toBeDefined();
    expect(jwe.engine).toBe(jwe.fastEngine);
  });
});

describe("a runtime without Buffer", () => {
  /** The encoding module as loaded where `Buffer` does not exist, called only without it. */
  async function plainEncoding() {
    vi.resetModules();
    vi.stubGlobal("Buffer", undefined);
    const encoding = await import("../src/lib/crypto/encoding.js");
    vi.unstubAllGlobals();
    const bare = <T>(run: () => T): T => {
      vi.stubGlobal("Buffer", undefined);
      try {
        return run();
      } finally {
        vi.unstubAllGlobals();
      }
    };
    return {
      base64url: (bytes: Uint8Array) => bare(() => encoding.base64url(bytes)),
      fromBase64url: (text: string) => bare(() => encoding.fromBase64url(text)),
    };
  }

  it("encodes and decodes base64url exactly as the Buffer path does", async () => {
    const plain = await plainEncoding();
    vi.resetModules();
    const native = await import("../src/lib/crypto/encoding.js");
    for (let length = 0; length < 70; length++) {
      const bytes = new Uint8Array(randomBytes(length));
      const text = native.base64url(bytes);
      expect(text).toBe(Buffer.from(bytes).toString("base64url"));
      expect(plain.base64url(bytes)).toBe(text);
      expect(plain.fromBase64url(text)).toEqual(bytes);
      expect(new Uint8Array(native.fromBase64url(text))).toEqual(bytes);
    }
    // A view into a larger buffer encodes only its own bytes.
    const whole = new Uint8Array([1, 2, 3, 4, 5, 6]);
    expect(plain.base64url(whole.subarray(2, 5))).toBe("AwQF");
    expect(native.base64url(whole.subarray(2, 5))).toBe("AwQF");
  });

  it("refuses the same non-canonical spellings", async () => {
    const plain = await plainEncoding();
    vi.resetModules();
    const native = await import("../src/lib/crypto/encoding.js");
    // "AE": one byte whose spare bits are 0100; "AAB": two bytes whose spare bits are 01.
    for (const bad of [
      ...["A", "AAAAA", "AB=", "AB==", "A B", "AB+", "AB/", "AQ==", "AQ\n"],
      ...["AR", "AE", "AI", "AM", "A_", "AAB", "AA-"],
    ]) {
      expect(() => plain.fromBase64url(bad), bad).toThrow("invalid base64url");
      expect(() => native.fromBase64url(bad), bad).toThrow("invalid base64url");
    }
    expect(plain.fromBase64url("AQ")).toEqual(new Uint8Array([1]));
    expect(plain.fromBase64url("-_-_")).toEqual(new Uint8Array([0xfb, 0xff, 0xbf]));
    // Two bytes leave only two spare bits: the bit above them is data.
    for (const encoding of [plain, native]) {
      expect(new Uint8Array(encoding.fromBase64url("AAI"))).toEqual(new Uint8Array([0, 2]));
      expect(new Uint8Array(encoding.fromBase64url("AAE"))).toEqual(new Uint8Array([0, 1]));
    }
  });
});

describe("hex, where node:crypto is absent", () => {
  it("is two lowercase digits per byte", async () => {
    const { hex } = await import("../src/lib/crypto/encoding.js");
    expect(hex(new Uint8Array([0, 1, 15, 16, 171, 255]))).toBe("00010f10abff");
    expect(hex(new Uint8Array(0))).toBe("");
  });
});

const SECRET = "jwe-engine-secret-0123456789abcdef0123";
const SALT = "authjs.session-token";

/** Why `decode` refused `token`: its error, which is a JWTSessionError, and that error's cause. */
async function refusal(token: string, secret: string | string[] = SECRET) {
  const error = await decode({ token, secret, salt: SALT }).then(
    () => expect.unreachable("the token was accepted"),
    (e: unknown) => e as JWTSessionError,
  );
  expect(error).toBeInstanceOf(JWTSessionError);
  return { message: error.message, cause: (error.cause as Error | undefined)?.message };
}

/** A token whose parts are replaced by `change` (0: header … 4: tag), base64url-encoded. */
async function altered(change: Record<number, string>, enc: "A256CBC-HS512" | "A256GCM") {
  const key = await deriveKey(SECRET, SALT, enc);
  const parts = (await fastEngine!.encrypt(new TextEncoder().encode('{"sub":"1"}'), key)).split(
    ".",
  );
  for (const [index, value] of Object.entries(change)) parts[Number(index)] = value;
  return parts.join(".");
}

describe("decode says why it refused a token, in the cause", () => {
  const header = (value: unknown) => b64json(value);
  const rest = "..AAAAAAAAAAAAAAAA.AA.AAAAAAAAAAAAAAAAAAAAAA";

  it.each([
    ["four parts", "a.b.c.d", "not a compact JWE"],
    ["six parts", "a..b.c.d.e", "not a compact JWE"],
    [
      "an encrypted key",
      `${header({ alg: "dir", enc: "A256GCM" })}.AAAA.AAAAAAAAAAAAAAAA.AA.AAAAAAAAAAAAAAAAAAAAAA`,
      "a direct-encryption JWE has no encrypted key",
    ],
    ["a header that is not base64url", `e30=${rest}`, "JWE header is not base64url-encoded JSON"],
    [
      "a header that is not JSON",
      `${Buffer.from("{").toString("base64url")}${rest}`,
      "JWE header is not base64url-encoded JSON",
    ],
    ["a null header", `${header(null)}${rest}`, "JWE header is not an object"],
    ["an array header", `${header([])}${rest}`, "JWE header is not an object"],
    ["a number header", `${header(7)}${rest}`, "JWE header is not an object"],
    ["a string header", `${header("dir")}${rest}`, "JWE header is not an object"],
    ["another alg", `${header({ alg: "A256KW", enc: "A256GCM" })}${rest}`, "unsupported JWE alg"],
    ["another enc", `${header({ alg: "dir", enc: "A128GCM" })}${rest}`, "unsupported JWE enc"],
    [
      "zip",
      `${header({ alg: "dir", enc: "A256GCM", zip: "DEF" })}${rest}`,
      "unsupported JWE header parameter",
    ],
    [
      "crit",
      `${header({ alg: "dir", enc: "A256GCM", crit: [] })}${rest}`,
      "unsupported JWE header parameter",
    ],
  ])("%s: malformed", async (_, token, cause) => {
    expect(await refusal(token)).toEqual({ message: "The JWT is malformed", cause });
  });

  it("a header with invalid UTF-8 inside a string is malformed, not repaired", async () => {
    const json = Buffer.concat([
      Buffer.from('{"alg":"dir","enc":"A256GCM","kid":"'),
      Buffer.from([0xff]),
      Buffer.from('"}'),
    ]);
    const token = `${json.toString("base64url")}${rest}`;
    expect(await refusal(token)).toEqual({
      message: "The JWT is malformed",
      cause: "JWE header is not base64url-encoded JSON",
    });
  });

  it("a GCM tag cut to 12 bytes (spelled canonically) is refused by both engines", async () => {
    const key = await deriveKey(SECRET, SALT, "A256GCM");
    const token = await fastEngine!.encrypt(new TextEncoder().encode('{"sub":"1"}'), key);
    const parts = token.split(".");
    const cut = Buffer.from(parts[4]!, "base64url").subarray(0, 12).toString("base64url");
    const truncated = [...parts.slice(0, 4), cut].join(".");
    for (const engine of [fastEngine!, joseEngine]) {
      await expect(engine.decrypt(parseJwe(truncated), key)).rejects.toThrow();
    }
    expect((await refusal(truncated)).cause).toBe("bad GCM parameters");
  });

  it("a GCM IV of 16 bytes is refused before decrypting", async () => {
    const token = await altered({ 2: Buffer.alloc(16).toString("base64url") }, "A256GCM");
    expect((await refusal(token)).cause).toBe("bad GCM parameters");
  });

  it("CBC: a short tag or IV is refused before decrypting; a wrong tag fails authentication", async () => {
    const shortTag = await altered({ 4: Buffer.alloc(16).toString("base64url") }, "A256CBC-HS512");
    expect((await refusal(shortTag)).cause).toBe("bad CBC parameters");
    const shortIv = await altered({ 2: Buffer.alloc(12).toString("base64url") }, "A256CBC-HS512");
    expect((await refusal(shortIv)).cause).toBe("bad CBC parameters");
    const wrongTag = await altered({ 4: Buffer.alloc(32).toString("base64url") }, "A256CBC-HS512");
    expect(await refusal(wrongTag)).toEqual({
      message: "No secret matches the JWT key id",
      cause: "JWE authentication failed",
    });
  });

  it("the jose engine, handed a re-spelled part directly, says so", async () => {
    const key = await deriveKey(SECRET, SALT, "A256GCM");
    const jwe = parseJwe(await fastEngine!.encrypt(new TextEncoder().encode("{}"), key));
    await expect(joseEngine.decrypt({ ...jwe, tag: `${jwe.tag}=` }, key)).rejects.toThrow(
      "JWE part is not canonical base64url",
    );
  });

  it("a re-spelled segment is refused by the strict decoder", async () => {
    const token = await encode({ token: { sub: "1" }, secret: SECRET, salt: SALT });
    const parts = token.split(".");
    parts[4] = `${parts[4]}=`;
    expect((await refusal(parts.join("."))).cause).toBe("invalid base64url");
  });

  it("a payload that is not valid UTF-8 is refused, not repaired", async () => {
    // Encrypt the bytes {"sub":"<0xff>"} by hand, with the key Auth.js derives.
    const key = hkdfSync("sha256", SECRET, SALT, `Auth.js Generated Encryption Key (${SALT})`, 32);
    const kid = (await deriveKey(SECRET, SALT, "A256GCM")).kid;
    const protectedHeader = b64json({ alg: "dir", enc: "A256GCM", kid });
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", Buffer.from(key), iv);
    cipher.setAAD(Buffer.from(protectedHeader));
    const plaintext = Buffer.concat([
      Buffer.from('{"sub":"'),
      Buffer.from([0xff]),
      Buffer.from('"}'),
    ]);
    const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    const token = [protectedHeader, "", iv, ct, cipher.getAuthTag()]
      .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
      .join(".");
    expect((await refusal(token)).message).toBe("The JWT payload is not JSON");
  });
});
