import { hex, utf8 } from "./encoding.js";
import { nodeCrypto } from "./node.js";

/** Lowercase hex SHA-256 of a UTF-8 string. */
export async function sha256Hex(text: string): Promise<string> {
  if (nodeCrypto) return nodeCrypto.createHash("sha256").update(text, "utf8").digest("hex");
  return hex(new Uint8Array(await crypto.subtle.digest("SHA-256", utf8(text))));
}

/** `n` random bytes as lowercase hex. */
export function randomHex(n: number): string {
  if (nodeCrypto) return nodeCrypto.randomBytes(n).toString("hex");
  return hex(crypto.getRandomValues(new Uint8Array(n)));
}

/** A random UUID (v4). */
export function randomUUID(): string {
  return crypto.randomUUID();
}

/** Compares two strings without an early exit on the first difference. */
export function timingSafeEqual(a: string, b: string): boolean {
  const x = utf8(a);
  const y = utf8(b);
  if (nodeCrypto) {
    return x.byteLength === y.byteLength && nodeCrypto.timingSafeEqual(x, y);
  }
  let diff = x.byteLength ^ y.byteLength;
  for (let i = 0; i < x.byteLength; i++) diff |= (x[i] ?? 0) ^ (y[i % y.byteLength] ?? 0);
  return diff === 0;
}
