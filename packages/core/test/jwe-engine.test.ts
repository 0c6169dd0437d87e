/**
 * The JWE engine beyond a single token: its cache of parsed headers stays bounded however many
 * distinct valid headers arrive, and the runtimes without `node:crypto` or `Buffer` take the
 * WebCrypto and plain-JavaScript paths with the same results.
 */
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseJwe } from "../src/lib/crypto/jwe.js";

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
    vi.spyOn(process, "getBuiltinModule" as never).mockImplementation(getBuiltinModule as never);
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
    const { decode } = await import("@gatehouse/core/jwt");
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
  async function plainEncoding() {
    vi.resetModules();
    vi.stubGlobal("Buffer", undefined);
    const encoding = await import("../src/lib/crypto/encoding.js");
    vi.unstubAllGlobals();
    return encoding;
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
    expect(plain.base64url(whole.subarray(2, 5))).toBe(native.base64url(whole.subarray(2, 5)));
    expect(native.base64url(whole.subarray(2, 5))).toBe("AwQF");
  });

  it("refuses the same non-canonical spellings", async () => {
    const plain = await plainEncoding();
    for (const bad of ["A", "AB=", "AB==", "A B", "AB+", "AB/", "AR", "AAB", "AAAAA", "AQ=="]) {
      expect(() => plain.fromBase64url(bad), bad).toThrow(TypeError);
    }
    expect(plain.fromBase64url("AQ")).toEqual(new Uint8Array([1]));
    expect(plain.fromBase64url("AAE")).toEqual(new Uint8Array([0, 1]));
    expect(plain.fromBase64url("-_-_")).toEqual(new Uint8Array([0xfb, 0xff, 0xbf]));
  });
});
