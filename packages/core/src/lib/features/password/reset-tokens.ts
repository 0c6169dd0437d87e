/**
 * Reset links (and codes) of password accounts, and why an older one stops working.
 *
 * A reset token is random, mailed in a link, and stored only as a keyed hash through the adapter's
 * verification-token methods, under an identifier of its own (no verification link, email sign-in
 * link or code can be redeemed as one). `useVerificationToken` returns and deletes the row at once,
 * so each token works once however many requests race for it, and the row expires (1 hour by
 * default, the provider's `resetMaxAge`).
 *
 * A token is also **bound to the state of the password account** when it was made: the keyed hash
 * covers the account's stored password value and its *reset generation*, a random value every
 * reset request writes on the account (in the column an account keeps a refresh token in:
 * ./store.ts `GENERATION_FIELD`). Redeeming recomputes the hash from the account as it is now, so
 * a token made before
 *
 * - a newer request (the generation changed),
 * - a completed reset, a password change, or a hash upgraded at sign-in (the stored value changed)
 *
 * matches no row and works no more, without any adapter method beyond the ones every password
 * account needs: no listing or deleting of a user's older tokens. Their rows stay until they
 * expire, unusable.
 */
import type { Context } from "../../context.js";
import { randomHex, randomUUID } from "../../crypto/hash.js";
import { keyedHash } from "../rate-limit/keys.js";
import type { PasswordConfig } from "./options.js";
import { type PasswordAccount, storeOf, writeGeneration } from "./store.js";

/** Default lifetime of a reset link, in seconds: 1 hour. */
export const DEFAULT_RESET_MAX_AGE = 60 * 60;

/** The route a reset link opens. */
export const RESET_ROUTE = "reset-password";

/** How long a provider's reset links live, in seconds. */
export const resetMaxAgeOf = (provider: Pick<PasswordConfig, "resetMaxAge">) =>
  provider.resetMaxAge ?? DEFAULT_RESET_MAX_AGE;

/** The verification-token identifier of a provider's reset tokens for an address. */
export function resetIdentifier(provider: Pick<PasswordConfig, "id">, address: string): string {
  // Provider ids hold no `:`, so no two (provider, address) pairs share an identifier.
  return `gatehouse.password-reset:${provider.id}:${address}`;
}

/** The parts a token is bound to: the account's stored password and its reset generation. */
export interface ResetState {
  stored: string;
  generation: string;
}

/** The state a password account's reset tokens are bound to, or null when it has no password. */
export function resetStateOf(account: PasswordAccount): ResetState | null {
  if (!account.stored || account.stored.pending) return null;
  return { stored: account.stored.value, generation: account.generation };
}

/** Each field preceded by its length: no two lists of fields make the same text. */
const framed = (fields: string[]) => fields.map((f) => `${f.length}:${f}`).join("");

/**
 * The stored form of a reset token (`kind` tells a link's token from a code): a keyed hash under
 * `secret` of the identifier, the account's state and the token.
 */
export function resetTokenHash(
  secret: string,
  identifier: string,
  state: ResetState,
  kind: "link" | "code",
  token: string,
): string | Promise<string> {
  return keyedHash(
    secret,
    framed(["gatehouse.password-reset", identifier, kind, state.stored, state.generation, token]),
  );
}

/** A fresh generation: what a reset request writes on the account. */
export const newGeneration = () => randomHex(16);

/** A reset made and stored: the link's token, the code (when the provider sends one), the end. */
export interface ResetTokens {
  token: string;
  code?: string;
  expires: Date;
}

/**
 * Starts a reset of the account holding `address`: a new generation (which ends every older
 * token), then the link's row and, when `code` is given, the code's.
 */
export async function createReset(
  ctx: Context,
  provider: PasswordConfig,
  userId: string,
  address: string,
  stored: string,
  code: string | undefined,
): Promise<ResetTokens> {
  const generation = newGeneration();
  await writeGeneration(ctx, provider, userId, generation);
  const state = { stored, generation };
  const identifier = resetIdentifier(provider, address);
  const secret = ctx.config.secrets[0] as string;
  const expires = new Date(Date.now() + resetMaxAgeOf(provider) * 1000);
  const token = randomHex(32);
  const store = storeOf(ctx);
  const rows: { kind: "link" | "code"; value: string }[] = [{ kind: "link", value: token }];
  if (code !== undefined) rows.push({ kind: "code", value: code });
  for (const row of rows) {
    const hash = await resetTokenHash(secret, identifier, state, row.kind, row.value);
    await store.createVerificationToken({ identifier, token: hash, expires });
  }
  return code === undefined ? { token, expires } : { token, code, expires };
}

/**
 * The work of {@link createReset} for an address that gets no reset (no account, no password):
 * the same hashes, and as many adapter writes that change nothing (the generation of an account
 * nobody has, the deletion of rows that do not exist), so the answer takes about as long.
 */
export async function decoyReset(
  ctx: Context,
  provider: PasswordConfig,
  address: string,
  code: boolean,
): Promise<void> {
  const identifier = resetIdentifier(provider, address);
  const state = { stored: randomHex(32), generation: newGeneration() };
  const secret = ctx.config.secrets[0] as string;
  const store = storeOf(ctx);
  await writeGeneration(ctx, provider, randomUUID(), state.generation);
  const rows = [resetTokenHash(secret, identifier, state, "link", randomHex(32))];
  if (code) rows.push(resetTokenHash(secret, identifier, state, "code", randomHex(4)));
  for (const hash of rows) await store.useVerificationToken({ identifier, token: await hash });
}

/**
 * Redeems a reset token against the account's state now: `"used"` when a live row matched (and
 * was deleted), `"expired"` when the row matched but had expired (deleted too), null when none
 * matched (wrong, used, or made before the state changed). Tried under each secret of the
 * rotation list.
 */
export async function redeemReset(
  ctx: Context,
  provider: Pick<PasswordConfig, "id">,
  address: string,
  state: ResetState,
  kind: "link" | "code",
  token: string,
): Promise<"used" | "expired" | null> {
  const identifier = resetIdentifier(provider, address);
  for (const secret of ctx.config.secrets) {
    const hash = await resetTokenHash(secret, identifier, state, kind, token);
    const found = await storeOf(ctx).useVerificationToken({ identifier, token: hash });
    if (found) return found.expires.valueOf() < Date.now() ? "expired" : "used";
  }
  return null;
}
