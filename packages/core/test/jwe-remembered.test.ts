/**
 * The engine in use remembers the tokens it decrypted lately (a browser sends the same session
 * cookie with every request): a token seen again is answered without decrypting it, but only
 * that exact token under that exact key, never one that failed, and within a bounded memory.
 */
import { decode, encode } from "@gatehousejs/core/jwt";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  fastEngine,
  type JweEngine,
  joseEngine,
  type ParsedJwe,
  parseJwe,
  Recent,
  rememberDecryptions,
} from "../src/lib/crypto/jwe.js";
import { deriveKey } from "../src/lib/crypto/keys.js";
import { nodeCrypto } from "../src/lib/crypto/node.js";

const SECRET = "remembered-secret-0123456789abcdef0123456789";
const SALT = "authjs.session-token";
const text = new TextEncoder();
const read = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** `fastEngine` behind a memory, with its decryptions counted. */
function counted(limit?: number) {
  const inner: JweEngine = {
    encrypt: (plaintext, key) => fastEngine!.encrypt(plaintext, key),
    decrypt: vi.fn((jwe: ParsedJwe, key) => fastEngine!.decrypt(jwe, key)),
  };
  return { remembering: rememberDecryptions(inner, limit), decrypts: inner.decrypt };
}

async function token(payload: string, secret = SECRET) {
  const key = await deriveKey(secret, SALT);
  const compact = await fastEngine!.encrypt(text.encode(payload), key);
  return { key, compact, jwe: parseJwe(compact) };
}

/** The same token with one part replaced by the same part of another token. */
const swapped = (jwe: ParsedJwe, other: ParsedJwe, part: keyof ParsedJwe) => ({
  ...jwe,
  [part]: other[part],
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("remembered decryptions", () => {
  it("a token decrypted again is answered from memory, with the same bytes", async () => {
    const { remembering, decrypts } = counted();
    const { key, compact } = await token('{"sub":"1"}');
    // Parsed anew each time, as each request's cookie is.
    for (let i = 0; i < 3; i++) {
      expect(read(await remembering.decrypt(parseJwe(compact), key))).toBe('{"sub":"1"}');
    }
    expect(decrypts).toHaveBeenCalledTimes(1);
  });

  it("a token with any part changed is decrypted, and refused, never answered from memory", async () => {
    const { remembering, decrypts } = counted();
    const { key, jwe } = await token('{"sub":"1"}');
    const other = (await token('{"sub":"2"}')).jwe;
    await remembering.decrypt(jwe, key);
    for (const part of ["iv", "ciphertext", "tag"] as const) {
      await expect(remembering.decrypt(swapped(jwe, other, part), key), part).rejects.toThrow(
        "JWE authentication failed",
      );
    }
    // A header of another key (the kid differs): its bytes are authenticated too.
    const foreign = (await token("{}", `${SECRET}-other`)).jwe;
    await expect(
      remembering.decrypt(swapped(jwe, foreign, "protectedHeader"), key),
    ).rejects.toThrow("JWE authentication failed");
    expect(decrypts).toHaveBeenCalledTimes(5);
  });

  it("another key never gets the plaintext a token had under the first", async () => {
    const { remembering } = counted();
    const { key, jwe } = await token('{"sub":"1"}');
    const otherKey = await deriveKey(`${SECRET}-other`, SALT);
    await remembering.decrypt(jwe, key);
    await expect(remembering.decrypt(jwe, otherKey)).rejects.toThrow("JWE authentication failed");
  });

  it("a refused token is not remembered: it is checked again every time", async () => {
    const { remembering, decrypts } = counted();
    const { key, jwe } = await token('{"sub":"1"}');
    const forged = swapped(jwe, (await token("{}")).jwe, "tag");
    for (let i = 0; i < 3; i++) await expect(remembering.decrypt(forged, key)).rejects.toThrow();
    expect(decrypts).toHaveBeenCalledTimes(3);
  });

  it("each caller gets bytes of its own: changing them changes nothing remembered", async () => {
    const { remembering } = counted();
    const { key, jwe } = await token('{"sub":"1"}');
    (await remembering.decrypt(jwe, key)).fill(0);
    (await remembering.decrypt(jwe, key)).fill(0);
    expect(read(await remembering.decrypt(jwe, key))).toBe('{"sub":"1"}');
  });

  it("memory is bounded: a token unused for two generations is decrypted again; one in use stays", async () => {
    const { remembering, decrypts } = counted(2);
    const tokens = await Promise.all(["1", "2", "3", "4"].map((n) => token(`{"sub":"${n}"}`)));
    const [t1, t2, t3, t4] = tokens.map(
      (t) =>
        (jwe: ParsedJwe = t.jwe) =>
          remembering.decrypt(jwe, t.key),
    );
    await t1!();
    await t2!(); // young: 1, 2
    await t3!(); // young full: old 1, 2; young 3
    await t1!(); // found in the old generation, moved back: young 3, 1
    expect(decrypts).toHaveBeenCalledTimes(3);
    await t4!(); // young full: old 3, 1; young 4 (2 is gone)
    await t1!();
    expect(decrypts).toHaveBeenCalledTimes(4);
    await t2!();
    expect(decrypts).toHaveBeenCalledTimes(5);
  });

  it("holds at most two generations, however many tokens pass", () => {
    const recent = new Recent<number>(10);
    for (let i = 0; i < 1000; i++) recent.set(`token-${i}`, i);
    expect(recent.size).toBeLessThanOrEqual(20);
    expect(recent.get("token-999")).toBe(999);
    expect(recent.get("token-0")).toBeUndefined();
  });

  it("is how both engines decrypt: a session token read twice is deciphered once", async () => {
    const deciphers = vi.spyOn(nodeCrypto!, "createDecipheriv");
    const jwt = await encode({ token: { sub: "twice" }, secret: SECRET, salt: SALT });
    for (let i = 0; i < 2; i++) {
      expect(await decode({ token: jwt, secret: SECRET, salt: SALT })).toMatchObject({
        sub: "twice",
      });
    }
    expect(deciphers).toHaveBeenCalledTimes(1);
    const { key, compact } = await token('{"sub":"jose"}');
    const inner = vi.spyOn(globalThis.crypto.subtle, "decrypt");
    for (let i = 0; i < 2; i++) await joseEngine.decrypt(parseJwe(compact), key);
    expect(inner).toHaveBeenCalledTimes(1);
  });
});
