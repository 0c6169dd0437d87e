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

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const base64urlAlphabet = /^[A-Za-z0-9_-]*$/;

/**
 * Whether `text` is canonical base64url: only the URL alphabet, no padding, no whitespace, a
 * length a byte string can have, and zero in the unused low bits of the last character, so that
 * every byte string has exactly one spelling.
 */
export function isCanonicalBase64url(text: string): boolean {
  if (!base64urlAlphabet.test(text)) return false;
  const tail = text.length % 4;
  if (tail === 0) return true;
  if (tail === 1) return false;
  // Two characters carry one byte (4 spare bits); three carry two bytes (2 spare bits).
  const value = alphabet.indexOf(text.charAt(text.length - 1));
  return (value & (tail === 2 ? 0x0f : 0x03)) === 0;
}

/** Decodes canonical base64url (see {@link isCanonicalBase64url}); throws on anything else. */
export function fromBase64url(text: string): Uint8Array {
  if (hasBuffer) {
    // Buffer's decoder skips characters outside the alphabet and reads either alphabet, so its
    // bytes say nothing about the text; but they encode back to the text exactly when the text
    // was their one canonical spelling. One native pass each way, no regular expression.
    const bytes = Buffer.from(text, "base64url");
    if (bytes.toString("base64url") !== text) throw new TypeError("invalid base64url");
    return bytes;
  }
  if (!isCanonicalBase64url(text)) throw new TypeError("invalid base64url");
  // atob takes unpadded input (forgiving-base64), and the text is canonical by now.
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

export function hex(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) out += byte.toString(16).padStart(2, "0");
  return out;
}

/**
 * Base64url to padded standard base64 (RFC 4648, sections 5 and 4): the same bytes, another
 * alphabet, so nothing is decoded. The text must be base64url (see {@link isCanonicalBase64url}).
 */
export function base64urlToBase64(text: string): string {
  const standard = text.replace(/-/g, "+").replace(/_/g, "/");
  return standard + "=".repeat((4 - (standard.length % 4)) % 4);
}

/** Standard base64, padded or not, to base64url without padding; nothing is decoded. */
export function base64ToBase64url(text: string): string {
  return text.replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
}

/** Padded standard base64 (what `Buffer#toString("base64")` writes). */
export function base64(bytes: Uint8Array): string {
  return base64urlToBase64(base64url(bytes));
}

const base64Text = /^[A-Za-z0-9+/]*$/;

/**
 * Decodes canonical standard base64, with its padding or without it; throws on anything else
 * (the base64url alphabet, whitespace, misplaced padding, spare bits set).
 */
export function fromBase64(text: string): Uint8Array {
  const bare = text.length % 4 === 0 ? text.replace(/={1,2}$/, "") : text;
  const url = base64ToBase64url(bare);
  if (!base64Text.test(bare) || !isCanonicalBase64url(url)) throw new TypeError("invalid base64");
  return fromBase64url(url);
}
