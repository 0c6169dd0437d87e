/** Base64url and hex helpers that work with or without `Buffer`. */

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

export function utf8(text: string): Uint8Array<ArrayBuffer> {
  return encoder.encode(text);
}

/** Decodes UTF-8; throws on invalid sequences. */
export function fromUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

const hasBuffer = typeof (globalThis as { Buffer?: unknown }).Buffer === "function";

export function base64url(bytes: Uint8Array): string {
  if (hasBuffer)
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64url");
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

const base64urlAlphabet = /^[A-Za-z0-9_-]*$/;

/** Decodes strict base64url (no padding, no other alphabet); throws on anything else. */
export function fromBase64url(text: string): Uint8Array {
  if (!base64urlAlphabet.test(text) || text.length % 4 === 1) {
    throw new TypeError("invalid base64url");
  }
  if (hasBuffer) return Buffer.from(text, "base64url");
  const padded = text.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(padded + "=".repeat((4 - (padded.length % 4)) % 4));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export function hex(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) out += byte.toString(16).padStart(2, "0");
  return out;
}
