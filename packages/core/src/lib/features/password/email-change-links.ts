/**
 * The links that change a signed-in user's address: a random token mailed to the **new**
 * address, stored only as a keyed hash through the adapter's verification-token methods under an
 * identifier of its own (no verification, reset or email sign-in token can be redeemed as one).
 * The hash also covers the user's id and their address when the link was made, so a link works
 * only for the user who asked, and only while their address is the one it was made from (a
 * later change ends every older link). `useVerificationToken` returns and deletes the row at
 * once: each link works once, however many requests race for it. It expires after an hour.
 */
import type { Context } from "../../context.js";
import { randomHex } from "../../crypto/hash.js";
import type { AdapterUser } from "../../types/models.js";
import { keyedHash } from "../rate-limit/keys.js";
import type { PasswordConfig } from "./options.js";
import { routeUrl } from "./reset-request.js";
import { storeOf } from "./store.js";

/** The route of a change of address (the request, and the link). */
export const CHANGE_EMAIL_ROUTE = "change-email";

/** Lifetime of a link, in seconds: 1 hour. */
export const EMAIL_CHANGE_MAX_AGE = 60 * 60;

/** The verification-token identifier of a provider's links to a new address. */
export function emailChangeIdentifier(provider: Pick<PasswordConfig, "id">, address: string) {
  // Provider ids hold no `:`, so no two (provider, address) pairs share an identifier.
  return `gatehouse.password-email-change:${provider.id}:${address}`;
}

/** Each field preceded by its length: no two lists of fields make the same text. */
const framed = (fields: string[]) => fields.map((f) => `${f.length}:${f}`).join("");

/** The stored form of a token, bound to the user and to their address when it was made. */
function linkHash(
  secret: string,
  identifier: string,
  user: AdapterUser,
  token: string,
): string | Promise<string> {
  return keyedHash(
    secret,
    framed(["gatehouse.password-email-change", identifier, user.id, user.email ?? "", token]),
  );
}

/** Makes and stores a link that moves `user` to `address`: its URL and its end. */
export async function createEmailChangeLink(
  ctx: Context,
  provider: PasswordConfig,
  user: AdapterUser,
  address: string,
): Promise<{ url: string; expires: Date }> {
  const token = randomHex(32);
  const identifier = emailChangeIdentifier(provider, address);
  const expires = new Date(Date.now() + EMAIL_CHANGE_MAX_AGE * 1000);
  const hash = await linkHash(ctx.config.secrets[0] as string, identifier, user, token);
  await storeOf(ctx).createVerificationToken({ identifier, token: hash, expires });
  const url = routeUrl(ctx, CHANGE_EMAIL_ROUTE, provider, { token, email: address, user: user.id });
  return { url, expires };
}

/**
 * Spends a link for `user` to `address`, tried under each secret of the rotation list:
 * `"used"`, `"expired"` (spent, but too late), or null (wrong, used, or made before the user's
 * address changed).
 */
export async function redeemEmailChangeLink(
  ctx: Context,
  provider: PasswordConfig,
  user: AdapterUser,
  address: string,
  token: string,
): Promise<"used" | "expired" | null> {
  const identifier = emailChangeIdentifier(provider, address);
  for (const secret of ctx.config.secrets) {
    const found = await storeOf(ctx).useVerificationToken({
      identifier,
      token: await linkHash(secret, identifier, user, token),
    });
    if (found) return found.expires.valueOf() < Date.now() ? "expired" : "used";
  }
  return null;
}
