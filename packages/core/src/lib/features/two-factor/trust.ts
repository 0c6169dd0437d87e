/**
 * Trusted browsers: "don't ask again on this browser for 30 days". A right code at the challenge
 * with `trustBrowser` lists the browser in the user's row (./store.ts: a random id, when, a short
 * description from its User-Agent, never its address) and gives it a cookie, encrypted with the
 * configured secret, that holds the user's id, that id and the row's generation of trust. A
 * later sign-in of the same user in that browser skips the challenge (./step.ts) while all three
 * match the row: the cookie copied into another user's sign-in names the wrong user, a browser
 * forgotten from the list is no longer listed, and a new generation (the second factor turned
 * off or reset, the password reset, changed or removed, "forget all") ends every cookie before it.
 */
import type { Context } from "../../context.js";
import { expireCookie } from "../../cookies.js";
import { randomHex } from "../../crypto/hash.js";
import { AuthError } from "../../errors.js";
import { decode, encode } from "../../jwt.js";
import { describeClient } from "../../session/client.js";
import type { Cookie } from "../../types/config.js";
import {
  MAX_TRUSTED,
  newGeneration,
  readRowState,
  type TrustedBrowser,
  type TwoFactorChange,
  type TwoFactorRecord,
  updateTwoFactor,
} from "./store.js";

/** How long a browser stays trusted, in seconds: 30 days. */
export const TRUST_MAX_AGE = 30 * 24 * 60 * 60;

/** The key derivation's salt: the cookie's own, whatever the cookie is named. */
const SALT = "gatehouse.two-factor-trust";

/** What the cookie seals. */
interface TrustClaims {
  /** The user's id. */
  u?: unknown;
  /** The trusted browser's id in the user's row. */
  t?: unknown;
  /** The generation of trust it was made in. */
  g?: unknown;
}

/** The trust this browser's cookie carries, opened but not yet compared with a row. */
export interface TrustCookie {
  userId: string;
  id: string;
  generation: string;
}

/** The browser's trust cookie, opened; null when it has none, or one that does not open. */
export async function readTrustCookie(ctx: Context): Promise<TrustCookie | null> {
  const value = ctx.req.cookies[ctx.cookieOptions.twoFactorTrust.name];
  if (!value) return null;
  let claims: TrustClaims | null;
  try {
    claims = await decode<TrustClaims>({ token: value, secret: ctx.config.secrets, salt: SALT });
  } catch {
    // Tampered with, expired, or sealed with a secret no longer configured: no trust.
    return null;
  }
  const { u, t, g } = claims ?? {};
  if (typeof u !== "string" || typeof t !== "string" || typeof g !== "string") return null;
  return { userId: u, id: t, generation: g };
}

/** The listed, unexpired browser that `trust` names for `userId` in `record`, or undefined. */
export function trustedEntry(
  record: Pick<TwoFactorRecord, "generation" | "trusted">,
  userId: string,
  trust: TrustCookie | null,
  now = Date.now(),
): TrustedBrowser | undefined {
  if (!trust || trust.userId !== userId) return undefined;
  if (record.generation === "" || trust.generation !== record.generation) return undefined;
  return record.trusted.find((entry) => entry.id === trust.id && entry.exp > now);
}

/** Whether this browser's cookie lets `userId`, whose second factor is `record`, skip it. */
export async function isTrustedBrowser(
  ctx: Context,
  userId: string,
  record: TwoFactorRecord,
): Promise<boolean> {
  return trustedEntry(record, userId, await readTrustCookie(ctx)) !== undefined;
}

/** A new entry for this browser: an id, the time, and what its User-Agent says it is. */
export function newTrustedBrowser(ctx: Context, now = Date.now()): TrustedBrowser {
  return {
    id: randomHex(16),
    at: now,
    client: describeClient(ctx.req.headers.get("user-agent")) ?? "Unknown client",
    exp: now + TRUST_MAX_AGE * 1000,
  };
}

/**
 * The change that lists `entry` first, written with the proof that earned it: the expired
 * entries go, the oldest past {@link MAX_TRUSTED} too; a row without a generation gets one.
 */
export function listTrusted(entry: TrustedBrowser): (record: TwoFactorRecord) => TwoFactorChange {
  return (record) => ({
    generation: record.generation || newGeneration(),
    trusted: [entry, ...record.trusted.filter((old) => old.exp > entry.at)].slice(0, MAX_TRUSTED),
  });
}

/** The cookie of a trusted browser. */
export async function trustCookie(
  ctx: Context,
  userId: string,
  entry: TrustedBrowser,
  generation: string,
): Promise<Cookie> {
  const { name, options } = ctx.cookieOptions.twoFactorTrust;
  const claims: TrustClaims = { u: userId, t: entry.id, g: generation };
  const value = await encode<TrustClaims>({
    token: claims,
    secret: ctx.config.secrets,
    salt: SALT,
    maxAge: TRUST_MAX_AGE,
  });
  return { name, value, options: { ...options, maxAge: TRUST_MAX_AGE } };
}

/** The cookie that deletes this browser's trust cookie. */
export function forgetTrustCookie(ctx: Context): Cookie {
  const { name, options } = ctx.cookieOptions.twoFactorTrust;
  return expireCookie(name, options);
}

/** A trusted browser as the user's settings list it: no address, no cookie, no generation. */
export interface TrustedBrowserView {
  id: string;
  client: string;
  createdAt: string;
  expiresAt: string;
  /** Whether it is the browser asking. */
  current: boolean;
}

/** The user's unexpired trusted browsers, newest first. */
export async function listTrustedBrowsers(
  ctx: Context,
  userId: string,
  record: TwoFactorRecord | null,
): Promise<TrustedBrowserView[]> {
  if (!record?.enabled) return [];
  const now = Date.now();
  const mine = trustedEntry(record, userId, await readTrustCookie(ctx), now);
  return record.trusted
    .filter((entry) => entry.exp > now)
    .map((entry) => ({
      id: entry.id,
      client: entry.client,
      createdAt: new Date(entry.at).toISOString(),
      expiresAt: new Date(entry.exp).toISOString(),
      current: entry.id === mine?.id,
    }));
}

/**
 * Forgets one trusted browser of the user (`id`), or every one (`null`: a new generation, so no
 * cookie made before opens anything, listed or not). False when `id` is not listed.
 */
export async function forgetTrusted(
  ctx: Pick<Context, "config">,
  userId: string,
  id: string | null,
): Promise<boolean> {
  for (let attempt = 0; attempt < 4; attempt++) {
    const state = await readRowState(ctx, userId);
    if (!state) return id === null;
    let change: TwoFactorChange;
    if (id === null) {
      change = { generation: newGeneration(), trusted: [] };
    } else {
      if (!state.trusted.some((entry) => entry.id === id)) return false;
      change = { trusted: state.trusted.filter((entry) => entry.id !== id) };
    }
    if (await updateTwoFactor(ctx, userId, state, change)) return true;
  }
  throw new AuthError("The trusted browsers kept changing while they were being forgotten");
}
