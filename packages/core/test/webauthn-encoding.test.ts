/**
 * The WebAuthn code's conversions between the browser's base64url, the adapters' base64 and the
 * public key bytes, on a runtime without `Buffer` (Workers without `nodejs_compat`): the same
 * results as the `Buffer` spellings they replace, and the same refusals.
 */
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";

afterEach(() => {
  vi.unstubAllGlobals();
  vi.resetModules();
});

/** Runs `run` with `globalThis.Buffer` gone. */
function bare<T>(run: () => T): T {
  vi.stubGlobal("Buffer", undefined);
  try {
    return run();
  } finally {
    vi.unstubAllGlobals();
  }
}

/** The ceremony and encoding modules as loaded where `Buffer` does not exist, called without it. */
async function withoutBuffer() {
  vi.resetModules();
  vi.stubGlobal("Buffer", undefined);
  const ceremony = await import("../src/lib/sign-in/webauthn/ceremony.js");
  const encoding = await import("../src/lib/crypto/encoding.js");
  vi.unstubAllGlobals();
  return {
    toBase64: (text: string) => bare(() => ceremony.toBase64(text)),
    toBase64url: (text: string) => bare(() => ceremony.toBase64url(text)),
    publicKeyFromStore: (text: string) => bare(() => ceremony.publicKeyFromStore(text)),
    publicKeyToStore: (bytes: Uint8Array) => bare(() => ceremony.publicKeyToStore(bytes)),
    base64: (bytes: Uint8Array) => bare(() => encoding.base64(bytes)),
    fromBase64: (text: string) => bare(() => encoding.fromBase64(text)),
  };
}

describe("WebAuthn encodings without Buffer", () => {
  it("credential ids and public keys convert exactly as Buffer converts them", async () => {
    const plain = await withoutBuffer();
    // Credential ids are 16 to 1,023 bytes; COSE public keys about 77 (EC2) to 272 (RSA).
    for (const length of [0, 1, 2, 3, 16, 32, 33, 64, 77, 255, 272, 1023]) {
      const bytes = new Uint8Array(randomBytes(length));
      const url = Buffer.from(bytes).toString("base64url");
      const stored = Buffer.from(bytes).toString("base64");
      expect(plain.toBase64(url), `${length} bytes`).toBe(stored);
      expect(plain.toBase64url(stored), `${length} bytes`).toBe(url);
      expect(plain.publicKeyToStore(bytes), `${length} bytes`).toBe(stored);
      expect(plain.publicKeyFromStore(stored), `${length} bytes`).toEqual(bytes);
      expect(plain.base64(bytes)).toBe(stored);
      expect(plain.fromBase64(stored)).toEqual(bytes);
      // A key stored without its padding reads the same.
      expect(plain.fromBase64(stored.replace(/=+$/, ""))).toEqual(bytes);
    }
    // A view into a larger buffer stores only its own bytes.
    const whole = new Uint8Array([1, 2, 3, 4, 5, 6]);
    expect(plain.publicKeyToStore(whole.subarray(2, 5))).toBe("AwQF");
    // Every character of both alphabets maps across.
    expect(plain.toBase64("-_-_")).toBe("+/+/");
    expect(plain.toBase64url("+/+/")).toBe("-_-_");
  });

  it("a credential id that is not canonical base64url is a verification failure", async () => {
    const plain = await withoutBuffer();
    // Padding, the standard alphabet, whitespace, an impossible length, spare bits set.
    for (const bad of ["AQ==", "AQ=", "+/8", "A B", "AQ\n", "A", "AAAAA", "AR", "AAB"]) {
      // The client-safe error the callback answers a failed verification with.
      expect(() => plain.toBase64(bad), bad).toThrow(
        expect.objectContaining({ type: "WebAuthnVerificationError" }),
      );
    }
    expect(plain.toBase64("AQ")).toBe("AQ==");
  });

  it("a stored key that is not canonical base64 is refused, not misread", async () => {
    const plain = await withoutBuffer();
    // The base64url alphabet, misplaced or extra padding, whitespace, spare bits set.
    for (const bad of ["-_8=", "AQ=", "A===", "AQ===", "AQ=A", " AQ==", "AQ==\n", "AR==", "A"]) {
      expect(() => plain.fromBase64(bad), bad).toThrow("invalid base64");
      expect(() => plain.publicKeyFromStore(bad), bad).toThrow("invalid base64");
    }
    expect(plain.fromBase64("")).toEqual(new Uint8Array());
    expect(plain.fromBase64("+/8=")).toEqual(new Uint8Array([0xfb, 0xff]));
  });
});
