/**
 * Where a password lives: an account row `{ userId, type: "password", provider: <provider id>,
 * providerAccountId: <user id>, passwordHash }`, created with `linkAccount`, read with
 * `getAccount` and changed with `updateAccount`. Any adapter that stores an account's extra
 * fields can hold it.
 *
 * The hash never leaves this module in an account: {@link withoutHash} is what sign-in callbacks,
 * moments and events get. A failed write whose error could quote the row (an ORM's message with
 * its parameters) is logged with the hash cut out.
 */
import { capabilitiesOf } from "../../capabilities.js";
import type { Context } from "../../context.js";
import { AdapterError } from "../../errors.js";
import type { Adapter, AdapterAccount } from "../../types/models.js";
import type { PASSWORD_ADAPTER_METHODS } from "./requirements.js";

/**
 * A password provider, by id. (Not `PasswordConfig`: this module is reached from the feature's
 * declaration, which must not bring the provider's option types into every app's program.)
 */
export interface PasswordProviderRef {
  id: string;
}

type Store = Required<Pick<Adapter, (typeof PASSWORD_ADAPTER_METHODS)[number]>>;

/**
 * The password account's type. The password provider's module adds `password` to the open list
 * (./types.ts); this file is also compiled where it is not a member (the built-ins are in every
 * app's program, the provider only in those that import it), so the value goes through `string`.
 */
const PASSWORD_TYPE = "password" as string as AdapterAccount["type"];

/** The configuration's adapter, whose password methods ./feature.ts checked when it was read. */
export const storeOf = (ctx: Context): Store => ctx.config.adapter as Store;

/** The password account of a user, as callbacks and listeners see it: no hash. */
export function publicAccount(provider: PasswordProviderRef, userId: string): AdapterAccount {
  return { userId, type: PASSWORD_TYPE, provider: provider.id, providerAccountId: userId };
}

/** `account` without its `passwordHash`. */
export function withoutHash(account: AdapterAccount): AdapterAccount {
  const { passwordHash: _hash, ...rest } = account;
  return rest;
}

/**
 * The prefix of a password chosen at sign-up whose address nobody has proven yet. It works (with
 * `requireEmailVerification: false`) only while the user's address is unproven; the link opened
 * in the browser that signed up drops the prefix. Once the address is proven any other way (an
 * email link, a verified OAuth sign-up, the owner securing the account), a pending password no
 * longer signs in, even before the listener of that proof (./void.ts) clears it: whoever chose
 * it never showed they own the address. No hash format starts with it.
 */
export const PENDING = "pending$";

/** A stored password: the value as stored, the hash to verify, and whether it is pending. */
export interface StoredPassword {
  /** As stored (the browser binding is made from it, ./binding.ts). */
  value: string;
  hash: string;
  pending: boolean;
}

/** The password of a user under `provider`, or null (no account, or voided). */
export async function storedPassword(
  ctx: Context,
  provider: PasswordProviderRef,
  userId: string,
): Promise<StoredPassword | null> {
  return (await passwordAccount(ctx, provider, userId)).stored;
}

/**
 * The column of the password account that holds its reset generation (./reset-tokens.ts): the
 * one every Auth.js-shaped adapter keeps an account's refresh token in, which a password account
 * has no other use for, and which `updateAccount` writes alone.
 */
export const GENERATION_FIELD = "refresh_token";

/** What a user's password account holds: its password, and the generation of its reset links. */
export interface PasswordAccount {
  stored: StoredPassword | null;
  /** The random value the newest reset request wrote; `""` before any. */
  generation: string;
}

/** The password account of a user under `provider`, read once. */
export async function passwordAccount(
  ctx: Context,
  provider: PasswordProviderRef,
  userId: string,
): Promise<PasswordAccount> {
  const account = await capabilitiesOf(ctx.config).getAccount?.(userId, provider.id);
  const own = account?.type === PASSWORD_TYPE ? account : undefined;
  const generation = own?.[GENERATION_FIELD];
  return {
    stored: parseStored(own?.passwordHash),
    generation: typeof generation === "string" ? generation : "",
  };
}

/**
 * Whether `account` is a password account of one of `providerIds` that proves nothing about who
 * holds the user: its password is pending (chosen at a sign-up nobody confirmed) or gone. An
 * address proof sets such an account aside when it decides whether it may adopt the user
 * (./feature.ts), and the pending password is then voided (./void.ts).
 */
export function provesNothing(account: AdapterAccount, providerIds: ReadonlySet<string>): boolean {
  if (account.type !== PASSWORD_TYPE || !providerIds.has(account.provider)) return false;
  const stored = parseStored(account.passwordHash);
  return stored === null || stored.pending;
}

function parseStored(value: unknown): StoredPassword | null {
  if (typeof value !== "string" || value === "" || value === PENDING) return null;
  const pending = value.startsWith(PENDING);
  return { value, hash: pending ? value.slice(PENDING.length) : value, pending };
}

/** Writes a new reset generation on a user's password account (no hash travels). */
export async function writeGeneration(
  ctx: Context,
  provider: PasswordProviderRef,
  userId: string,
  generation: string,
): Promise<void> {
  const key = { provider: provider.id, providerAccountId: userId };
  await storeOf(ctx).updateAccount({ ...key, [GENERATION_FIELD]: generation });
}

/**
 * An adapter failure that carried `hash`, with the hash cut out of the message and stack it is
 * logged with, and every other property of the error (an ORM's parameters) left behind.
 */
function redacted(error: unknown, hash: string | null): AdapterError {
  const inner = error instanceof AdapterError ? error.cause : error;
  // The bare hash: cutting it also cuts the pending form around it.
  const secret = hash?.startsWith(PENDING) ? hash.slice(PENDING.length) : hash;
  const cut = (text: string) => (secret ? text.split(secret).join("[password hash]") : text);
  const cause = new Error(cut(inner instanceof Error ? inner.message : "A non-error was thrown"));
  cause.name = inner instanceof Error ? inner.name : "Error";
  cause.stack = inner instanceof Error && inner.stack ? cut(inner.stack) : "";
  const message = error instanceof AdapterError ? error.message : "The password account failed";
  return new AdapterError(message, { cause });
}

/** Runs a write that carries `hash`: a failure is rethrown without the hash in it. */
async function carrying<T>(hash: string | null, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    throw redacted(error, hash);
  }
}

/** Links a new password account to `userId`. */
export function linkPassword(
  ctx: Context,
  provider: PasswordProviderRef,
  userId: string,
  hash: string,
): Promise<unknown> {
  const account = { ...publicAccount(provider, userId), passwordHash: hash };
  return carrying(hash, () => Promise.resolve(storeOf(ctx).linkAccount(account)));
}

/**
 * Replaces the hash of a user's password account (`null` voids it); links the account when the
 * user has none under this provider.
 */
export async function replaceHash(
  ctx: Context,
  provider: PasswordProviderRef,
  userId: string,
  hash: string | null,
): Promise<void> {
  const key = { provider: provider.id, providerAccountId: userId };
  const updated = await carrying(hash, () =>
    Promise.resolve(storeOf(ctx).updateAccount({ ...key, passwordHash: hash })),
  );
  if (updated || hash === null) return;
  await linkPassword(ctx, provider, userId, hash);
}
