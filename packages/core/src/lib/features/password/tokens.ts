/**
 * Verification links of password accounts: a random token mailed in the link, stored only as a
 * keyed hash through the adapter's verification-token methods, under an identifier of their own
 * (no email sign-in link or code can be redeemed as one, nor one as them). `useVerificationToken`
 * returns and deletes the row at once: each link works once, however many requests race for it.
 */
import type { Context } from "../../context.js";
import { randomHex } from "../../crypto/hash.js";
import type { VerificationToken } from "../../types/models.js";
import { keyedHash } from "../rate-limit/keys.js";
import type { PasswordConfig } from "./options.js";
import { storeOf } from "./store.js";

/** Default lifetime of a verification link: 24 hours, in seconds. */
export const DEFAULT_VERIFY_MAX_AGE = 24 * 60 * 60;

/** The route a link opens. */
export const VERIFY_ROUTE = "verify-email";

/** The verification-token identifier of a provider's links to an address. */
export function identifierOf(provider: Pick<PasswordConfig, "id">, address: string): string {
  // Provider ids hold no `:`, so no two (provider, address) pairs share an identifier.
  return `gatehouse.password-verify:${provider.id}:${address}`;
}

/** The stored form of a token: a keyed hash under `secret` (fixed-length fields, then the token). */
export async function tokenHash(
  secret: string,
  identifier: string,
  token: string,
): Promise<string> {
  return keyedHash(secret, `gatehouse.password-verify\u0000${identifier}\u0000${token}`);
}

/** How long a provider's links live, in seconds. */
export const maxAgeOf = (provider: Pick<PasswordConfig, "maxAge">) =>
  provider.maxAge ?? DEFAULT_VERIFY_MAX_AGE;

/** A link made and stored: its URL, the stored hash (for the browser binding) and its end. */
export interface Link {
  url: string;
  hash: string;
  expires: Date;
}

/** The URL of the verify route of `provider`, with `params`. */
export function verifyUrl(
  ctx: Context,
  provider: Pick<PasswordConfig, "id">,
  params: Record<string, string> = {},
): string {
  const url = new URL(`${ctx.authUrl}/${VERIFY_ROUTE}/${encodeURIComponent(provider.id)}`);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.href;
}

/** Makes and stores a verification link to `address`. */
export async function createLink(
  ctx: Context,
  provider: PasswordConfig,
  address: string,
  callbackUrl: string,
): Promise<Link> {
  const token = randomHex(32);
  const identifier = identifierOf(provider, address);
  const expires = new Date(Date.now() + maxAgeOf(provider) * 1000);
  const hash = await tokenHash(ctx.config.secrets[0] as string, identifier, token);
  await storeOf(ctx).createVerificationToken({ identifier, token: hash, expires });
  const url = verifyUrl(ctx, provider, { token, email: address, callbackUrl });
  return { url, hash, expires };
}

/** Deletes a stored link nobody will receive (its email could not be sent). */
export async function dropLink(
  ctx: Context,
  provider: PasswordConfig,
  address: string,
  link: Link,
): Promise<void> {
  const identifier = identifierOf(provider, address);
  await Promise.resolve(storeOf(ctx).useVerificationToken({ identifier, token: link.hash })).catch(
    (error) => ctx.config.logger.error(error as Error),
  );
}

/**
 * Redeems a link's token: the stored row, deleted as it is returned, or null (wrong, used, or
 * made under a secret no longer in the list). Tried under each secret of the rotation list.
 */
export async function redeemLink(
  ctx: Context,
  provider: PasswordConfig,
  address: string,
  token: string,
): Promise<VerificationToken | null> {
  const identifier = identifierOf(provider, address);
  for (const secret of ctx.config.secrets) {
    const found = await storeOf(ctx).useVerificationToken({
      identifier,
      token: await tokenHash(secret, identifier, token),
    });
    if (found) return found;
  }
  return null;
}

/** The hashes a token may be stored under, one per secret of the rotation list. */
export function candidateHashes(
  ctx: Context,
  provider: Pick<PasswordConfig, "id">,
  address: string,
  token: string,
): Promise<string[]> {
  const identifier = identifierOf(provider, address);
  return Promise.all(ctx.config.secrets.map((secret) => tokenHash(secret, identifier, token)));
}
