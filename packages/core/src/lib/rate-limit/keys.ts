/**
 * Counter keys. A key names its limit and carries a keyed hash (HMAC-SHA-256 with the first
 * secret) of what it counts, so neither an address nor an account ever reaches the store or a log
 * line, and nobody without the secret can tell whose counter a key is.
 */
import { base64url, utf8 } from "../crypto/encoding.js";
import { nodeCrypto } from "../crypto/node.js";
import type { CredentialInput } from "../types/providers.js";

/** The longest account identifier counted as given; longer ones are cut (they still count). */
const MAX_ACCOUNT_LENGTH = 320;

const webKeys = new Map<string, Promise<CryptoKey>>();

async function hmac(secret: string, text: string): Promise<string> {
  if (nodeCrypto) {
    return nodeCrypto.createHmac("sha256", secret).update(text, "utf8").digest("base64url");
  }
  let key = webKeys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", utf8(secret), { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
    ]);
    webKeys.set(secret, key);
  }
  return base64url(new Uint8Array(await crypto.subtle.sign("HMAC", await key, utf8(text))));
}

/**
 * The store key of a limit over some parts: `<limit>:<22 characters of HMAC>`. The parts are
 * joined with a character no address or normalised identifier holds.
 */
export async function limitKey(secret: string, limit: string, parts: string[]): Promise<string> {
  const digest = await hmac(
    secret,
    `gatehouse-rate-limit\u0000${limit}\u0000${parts.join("\u0000")}`,
  );
  return `${limit}:${digest.slice(0, 22)}`;
}

/** The part of a key that is safe to log: the limit and the first characters of the hash. */
export function loggableKey(key: string): string {
  const cut = key.lastIndexOf(":");
  return `${key.slice(0, cut)} ${key.slice(cut + 1, cut + 9)}`;
}

/** An account identifier as counted: trimmed, Unicode NFKC, lowercase, at most 320 characters. */
export function normalizeAccount(value: string): string {
  return value.trim().normalize("NFKC").toLowerCase().slice(0, MAX_ACCOUNT_LENGTH);
}

/**
 * The account a credentials attempt is for: the app's `account` function, else the `email` field,
 * else `username`, else the first declared field that is not a password. `""` when none is a
 * non-empty string (the attempt is then counted per client address only).
 */
export function accountOf(
  credentials: Record<string, unknown>,
  declared: Record<string, CredentialInput> | undefined,
  custom: ((credentials: Record<string, unknown>) => string | null | undefined) | undefined,
): string {
  let value: unknown;
  if (custom) value = custom(credentials);
  else {
    const names = ["email", "username"];
    for (const [name, input] of Object.entries(declared ?? {})) {
      if (input?.type !== "password" && !names.includes(name)) names.push(name);
    }
    value = names.map((name) => credentials[name]).find((v) => typeof v === "string" && v.trim());
  }
  return typeof value === "string" ? normalizeAccount(value) : "";
}
