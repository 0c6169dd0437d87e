/**
 * Public session ids: what clients see in place of session tokens. A database session's id is
 * derived from its token one way (SHA-256, base64url, 22 characters = 132 bits), so it can be
 * shown, logged and sent back for revocation without revealing the token. A JWT session's id is
 * its random `sid` claim.
 */
import { base64url, utf8 } from "../crypto/encoding.js";
import { nodeCrypto } from "../crypto/node.js";
import type { JWT } from "../types/models.js";

/** Length of every public session id (base64url characters). */
export const SESSION_ID_LENGTH = 22;

/** The id listed for a JWT issued without a `sid` (before session management, or by Auth.js). */
export const LEGACY_SESSION_ID = "legacy";

/** The public id of a database session: the first 22 base64url characters of SHA-256(token). */
export async function publicSessionId(sessionToken: string): Promise<string> {
  const digest = nodeCrypto
    ? nodeCrypto.createHash("sha256").update(sessionToken, "utf8").digest()
    : new Uint8Array(await crypto.subtle.digest("SHA-256", utf8(sessionToken)));
  return base64url(digest).slice(0, SESSION_ID_LENGTH);
}

/** A new random JWT session id (`sid`): 16 random bytes, 22 base64url characters. */
export function newSessionId(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(16)));
}

/** Whether `value` has the shape of a public session id (a cheap filter for client input). */
export function isSessionId(value: unknown): value is string {
  return typeof value === "string" && /^[A-Za-z0-9_-]{22}$/.test(value);
}

/** The session id of a JWT: its `sid`, or {@link LEGACY_SESSION_ID} for a token without one. */
export function jwtSessionId(token: JWT): string {
  return typeof token.sid === "string" && token.sid !== "" ? token.sid : LEGACY_SESSION_ID;
}

/**
 * When the session began (seconds): the `auth_time` claim set at sign-in and kept across
 * re-issues, or `iat` for a token from before session management. A user's revocation epoch is
 * compared with this, so a re-issue racing a revocation cannot outlive it.
 */
export function jwtSessionStart(token: JWT): number {
  if (typeof token.auth_time === "number") return token.auth_time;
  return typeof token.iat === "number" ? token.iat : 0;
}
