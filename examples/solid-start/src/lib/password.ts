/**
 * Password hashes with node:crypto's scrypt: `scrypt$<salt>$<hash>`, both base64url, a random
 * 16-byte salt per password, compared in constant time.
 */
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer): Promise<Buffer> {
  return new Promise((done, fail) => {
    scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, (error, key) =>
      error ? fail(error) : done(key),
    );
  });
}

/** A new hash of `password`, with a fresh random salt. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt);
  return `scrypt$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

/** Whether `password` matches `stored` (a {@link hashPassword} result). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64url");
  const actual = await derive(password, Buffer.from(salt, "base64url"));
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
