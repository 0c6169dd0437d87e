/**
 * Double-submit CSRF protection. The cookie holds `token|sha256(token + secret)`; a POST must
 * echo the token in its body. Any secret of the rotation list (or the list joined with commas, as
 * Auth.js hashes it) validates a cookie, so rotating secrets signs nobody's forms out.
 */
import { randomHex, sha256Hex, timingSafeEqual } from "./crypto/hash.js";

/** The token in a CSRF cookie, when its hash checks out under one of the secrets. */
export async function tokenFromCookie(
  cookie: string | undefined,
  secrets: string[],
): Promise<string | undefined> {
  if (!cookie) return undefined;
  const bar = cookie.indexOf("|");
  if (bar !== 64 || cookie.length !== 129) return undefined;
  const token = cookie.slice(0, bar);
  const hash = cookie.slice(bar + 1);
  const candidates = secrets.length > 1 ? [...secrets, secrets.join(",")] : secrets;
  for (const secret of candidates) {
    if (timingSafeEqual(await sha256Hex(token + secret), hash)) return token;
  }
  return undefined;
}

/** A fresh token and the cookie value that vouches for it, hashed with the first secret. */
export async function mintToken(secret: string): Promise<{ token: string; cookie: string }> {
  const token = randomHex(32);
  return { token, cookie: `${token}|${await sha256Hex(token + secret)}` };
}

/** Whether a submitted token matches the cookie's token. */
export function tokensMatch(submitted: unknown, token: string | undefined): boolean {
  return typeof submitted === "string" && token !== undefined && timingSafeEqual(submitted, token);
}
