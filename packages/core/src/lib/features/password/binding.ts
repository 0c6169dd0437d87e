/**
 * The browser a sign-up came from. Signing up sets a short-lived encrypted cookie that names the
 * link just mailed (its stored hash) and the password just stored (a keyed digest of the stored
 * value). The link confirms the address, and signs in, only in a browser that holds both: the one
 * that chose this password. Anywhere else the same link cannot vouch for that password; it offers
 * the address's owner to choose their own instead (./verify.ts).
 *
 * Every sign-up sets the cookie with the same name, attributes and length, whether or not the
 * address already had an account (then its fields are random and match nothing), so the cookie
 * tells nobody which addresses are taken.
 */
import type { Context } from "../../context.js";
import { expireCookie } from "../../cookies.js";
import { base64url } from "../../crypto/encoding.js";
import { timingSafeEqual } from "../../crypto/hash.js";
import { decode, encode } from "../../jwt.js";
import type { Cookie } from "../../types/config.js";
import { keyedHash } from "../rate-limit/keys.js";

/** What the cookie binds. */
export interface Binding {
  /** The password provider's id. */
  provider: string;
  /** The stored hash of the link mailed at sign-up. */
  link: string;
  /** {@link passwordMark} of the password stored at sign-up. */
  mark: string;
}

interface Sealed {
  p: string;
  l: string;
  m: string;
}

/** The cookie's name: `__Secure-` prefixed when the session cookie is secure. */
function cookieName(ctx: Context): { name: string; secure: boolean } {
  const secure = ctx.cookieOptions.sessionToken.options.secure === true;
  return { name: `${secure ? "__Secure-" : ""}gatehouse.password-signup`, secure };
}

/** A keyed digest of a stored password value: it names the value without revealing it. */
export async function passwordMark(secret: string, stored: string): Promise<string> {
  return keyedHash(secret, `gatehouse.password-mark\u0000${stored}`);
}

/** A value of a field's length that matches nothing: a base64url SHA-256's 43 characters. */
export function decoy(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

/** The cookie that binds a sign-up to this browser for `maxAge` seconds. */
export async function sealBinding(ctx: Context, binding: Binding, maxAge: number): Promise<Cookie> {
  const { name, secure } = cookieName(ctx);
  const token: Sealed = { p: binding.provider, l: binding.link, m: binding.mark };
  const value = await encode({ token, secret: ctx.config.secrets, salt: name, maxAge });
  return {
    name,
    value,
    options: { httpOnly: true, sameSite: "lax", path: "/", secure, maxAge },
  };
}

/** The binding this browser holds for `providerId`, or undefined (none, expired, or forged). */
export async function openBinding(ctx: Context, providerId: string): Promise<Binding | undefined> {
  const { name } = cookieName(ctx);
  const sealed = ctx.req.cookies[name];
  if (!sealed) return undefined;
  let claims: Partial<Sealed> | null;
  try {
    claims = await decode<Partial<Sealed>>({
      token: sealed,
      secret: ctx.config.secrets,
      salt: name,
    });
  } catch {
    return undefined;
  }
  if (!claims || claims.p !== providerId) return undefined;
  if (typeof claims.l !== "string" || typeof claims.m !== "string") return undefined;
  return { provider: claims.p, link: claims.l, mark: claims.m };
}

/** Whether the binding names the link stored under one of `hashes`. */
export function bindsLink(binding: Binding | undefined, hashes: string[]): boolean {
  if (!binding) return false;
  let found = false;
  for (const hash of hashes) found = timingSafeEqual(binding.link, hash) || found;
  return found;
}

/** Whether the binding names `stored`, the password value stored now, under a secret of the list. */
export async function bindsPassword(
  ctx: Context,
  binding: Binding,
  stored: string,
): Promise<boolean> {
  let found = false;
  for (const secret of ctx.config.secrets) {
    found = timingSafeEqual(binding.mark, await passwordMark(secret, stored)) || found;
  }
  return found;
}

/** Queues the deletion of the cookie, when the browser holds one. */
export function forgetBinding(ctx: Context): void {
  const { name, secure } = cookieName(ctx);
  if (!(name in ctx.req.cookies)) return;
  ctx.setCookies.push(expireCookie(name, { httpOnly: true, sameSite: "lax", path: "/", secure }));
}
