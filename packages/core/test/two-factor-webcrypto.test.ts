/**
 * A runtime without `node:crypto` (an edge worker) runs the two-factor primitives on WebCrypto
 * alone, and writes what the Node path writes: the same TOTP codes, a sealed secret under the
 * same derived key (opened here with `node:crypto` itself), backup-code hashes of the same form.
 */
import { createDecipheriv, createHash, hkdfSync } from "node:crypto";
import { expect, test, vi } from "vitest";

vi.mock("../src/lib/crypto/node.js", () => ({ nodeCrypto: undefined }));

test("TOTP gives RFC 6238's codes and checks them without node:crypto", async () => {
  const { totpCode, verifyTotp } = await import("../src/lib/features/two-factor/totp.js");
  const seed = new TextEncoder().encode("12345678901234567890");
  expect(await totpCode(seed, 41152263, { digits: 8 })).toBe("89005924");
  expect(await verifyTotp(seed, "89005924", { digits: 8, now: 1234567890_000 })).toBe(41152263);
  expect(await verifyTotp(seed, "89005925", { digits: 8, now: 1234567890_000 })).toBeNull();
});

test("a secret sealed without node:crypto is AES-256-GCM under the key Node derives", async () => {
  const { sealSecret, openSecret } = await import("../src/lib/features/two-factor/secret-box.js");
  const { fromBase64url } = await import("../src/lib/crypto/encoding.js");
  const secret = "a configured secret for the edge runtime";
  const sealed = await sealSecret([secret], "JBSWY3DPEHPK3PXP", { context: "user-7" });
  expect(await openSecret([secret], sealed, { context: "user-7" })).toBe("JBSWY3DPEHPK3PXP");

  const salt = "gatehouse two-factor secret";
  const key = Buffer.from(
    hkdfSync("sha256", secret, salt, `Auth.js Generated Encryption Key (${salt})`, 32),
  );
  const [version, kid, iv, ciphertext] = sealed.split(".") as [string, string, string, string];
  const thumbprint = createHash("sha256")
    .update(`{"k":"${key.toString("base64url")}","kty":"oct"}`)
    .digest("base64url");
  expect(version).toBe("v1");
  expect(thumbprint.startsWith(kid)).toBe(true);
  const bytes = fromBase64url(ciphertext);
  const decipher = createDecipheriv("aes-256-gcm", key, fromBase64url(iv));
  decipher.setAAD(Buffer.from(`v1.${kid}.user-7`));
  decipher.setAuthTag(bytes.subarray(bytes.length - 16));
  const plain = Buffer.concat([
    decipher.update(bytes.subarray(0, bytes.length - 16)),
    decipher.final(),
  ]);
  expect(plain.toString("utf8")).toBe("JBSWY3DPEHPK3PXP");
});

test("backup codes hash and redeem without node:crypto, as salted SHA-256", async () => {
  const { generateBackupCodes, hashBackupCode, useBackupCode } = await import(
    "../src/lib/features/two-factor/backup-codes.js"
  );
  const [code] = generateBackupCodes(1) as [string];
  const stored = await hashBackupCode(code);
  const [salt, hash] = stored.split(".") as [string, string];
  const normalized = code.replace("-", "");
  expect(hash).toBe(createHash("sha256").update(`${salt}.${normalized}`).digest("hex"));
  expect(await useBackupCode([stored], code.toUpperCase())).toEqual({ remaining: [] });
  expect(await useBackupCode([stored], generateBackupCodes(1)[0])).toBeNull();
});
