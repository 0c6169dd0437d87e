/**
 * The WebCrypto JWE engine (the one Workers and other runtimes without `node:crypto` use) is
 * Gatehouse's own code, not `jose`'s: `jose`'s JWE brings every key-management algorithm into an
 * edge bundle for the one a session token uses. These tests hold it to `jose` in both directions
 * and on damaged tokens, and check that the engine's module graph no longer reaches `jose`.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { CompactEncrypt, compactDecrypt } from "jose";
import { describe, expect, it } from "vitest";
import { parseJwe, webCryptoEngine } from "../src/lib/crypto/jwe.js";
import { type ContentEncryption, deriveKey } from "../src/lib/crypto/keys.js";

const SECRET = "webcrypto-engine-secret-0123456789abcdef";
const SALT = "authjs.session-token";
const encs: ContentEncryption[] = ["A256CBC-HS512", "A256GCM"];
const te = new TextEncoder();
const td = new TextDecoder();
const plaintexts = ["", "{}", '{"sub":"42","name":"Zoë 🦊"}', "x".repeat(4_099)];

/** What an engine or jose makes of a token: its plaintext, or "refused". */
async function verdict(open: () => Promise<Uint8Array>): Promise<string> {
  try {
    return `ok:${td.decode(await open())}`;
  } catch {
    return "refused";
  }
}

describe("the WebCrypto JWE engine against jose", () => {
  for (const enc of encs) {
    describe(enc, () => {
      it("reads what jose writes", async () => {
        const key = await deriveKey(SECRET, SALT, enc);
        for (const plaintext of plaintexts) {
          const token = await new CompactEncrypt(te.encode(plaintext))
            .setProtectedHeader({ alg: "dir", enc, kid: key.kid })
            .encrypt(key.key);
          const opened = await webCryptoEngine.decrypt(parseJwe(token), key);
          expect(td.decode(opened)).toBe(plaintext);
        }
      });

      it("writes what jose reads, with a fresh IV each time", async () => {
        const key = await deriveKey(SECRET, SALT, enc);
        const ivs = new Set<string>();
        for (const plaintext of plaintexts) {
          const token = await webCryptoEngine.encrypt(te.encode(plaintext), key);
          ivs.add(token.split(".")[2]!);
          const { plaintext: opened, protectedHeader } = await compactDecrypt(token, key.key);
          expect(td.decode(opened)).toBe(plaintext);
          expect(protectedHeader).toEqual({ alg: "dir", enc, kid: key.kid });
        }
        expect(ivs.size).toBe(plaintexts.length);
      });

      it("refuses every damaged token jose refuses, and opens none of them", async () => {
        const key = await deriveKey(SECRET, SALT, enc);
        const token = await webCryptoEngine.encrypt(te.encode('{"sub":"1"}'), key);
        const parts = token.split(".");
        let compared = 0;
        for (const index of [2, 3, 4]) {
          const bytes = Buffer.from(parts[index]!, "base64url");
          for (const byte of [0, bytes.byteLength - 1]) {
            for (const bit of [0, 7]) {
              const damaged = Buffer.from(bytes);
              damaged[byte]! ^= 1 << bit;
              const changed = parts.map((p, i) =>
                i === index ? damaged.toString("base64url") : p,
              );
              const hostile = changed.join(".");
              const ours = await verdict(() => webCryptoEngine.decrypt(parseJwe(hostile), key));
              const theirs = await verdict(
                async () => (await compactDecrypt(hostile, key.key)).plaintext,
              );
              expect(ours, `part ${index}, byte ${byte}, bit ${bit}`).toBe(theirs);
              expect(ours).toBe("refused");
              compared++;
            }
          }
        }
        expect(compared).toBe(12);
      });

      it("refuses a token sealed under another key", async () => {
        const key = await deriveKey(SECRET, SALT, enc);
        const other = await deriveKey(`${SECRET}-other`, SALT, enc);
        const token = await webCryptoEngine.encrypt(te.encode("{}"), other);
        await expect(webCryptoEngine.decrypt(parseJwe(token), key)).rejects.toThrow(
          "JWE authentication failed",
        );
      });
    });
  }

  it("CBC: a ciphertext cut to a length that is not whole blocks fails authentication", async () => {
    const key = await deriveKey(SECRET, SALT, "A256CBC-HS512");
    const jwe = parseJwe(await webCryptoEngine.encrypt(te.encode('{"sub":"1"}'), key));
    const cut = Buffer.from(jwe.ciphertext, "base64url").subarray(0, 15).toString("base64url");
    await expect(webCryptoEngine.decrypt({ ...jwe, ciphertext: cut }, key)).rejects.toThrow(
      "JWE authentication failed",
    );
  });
});

describe("the session-token code in a bundle", () => {
  it("reaches no module of jose (an edge bundle carries none of jose's JWE)", async () => {
    const entry = join(dirname(fileURLToPath(import.meta.url)), "../src/lib/jwt.ts");
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      write: false,
      metafile: true,
      format: "esm",
      platform: "neutral",
      conditions: ["worker", "browser"],
      mainFields: ["browser", "module", "main"],
      external: ["node:*"],
      logLevel: "silent",
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((p) => p.endsWith("lib/crypto/jwe.ts"))).toBe(true);
    expect(inputs.filter((p) => p.includes("/jose/"))).toEqual([]);
  }, 30_000);
});
