/**
 * Device cookies: a browser that signed in to an account with the right password carries a
 * signed cookie that says so, and its failed attempts on that account are counted on a backoff of
 * their own (per account and device), apart from everyone else's. Strangers who fail on purpose
 * then never slow down the user's own browsers (docs/rate-limits.md).
 *
 * The value is `<device id>` followed by one `.<expiry>.<seal>` per account the browser signed in
 * to (at most eight, the latest last): the device id is 122 random bits; the expiry is in seconds
 * since the epoch, always ten digits; the seal is a keyed hash (SHA-256 over a salt derived from
 * a secret) of the device id, the expiry and the account as the limiter counts it, one hash per
 * sign-in. The sealed text is prefix-free, so a seal cannot be extended into another one; the
 * cookie never shows the account; and an account can only be checked against a seal, never read
 * out of it. A seal is written under the first secret and accepted under any
 * secret of the rotation list, so rotating secrets keeps every device.
 */
import type { Context } from "../../context.js";
import { deviceCookieName } from "../../cookies.js";
import { timingSafeEqual } from "../../crypto/hash.js";
import type { Cookie } from "../../types/config.js";
import { keyedHash } from "./keys.js";

/** How long a device cookie lasts after the latest sign-in that wrote it: one year. */
export const DEVICE_MAX_AGE = 365 * 24 * 60 * 60;

/** Accounts one browser is remembered for; signing in to one more forgets the oldest. */
export const DEVICE_ACCOUNTS = 8;

const SHAPE = /^[0-9a-f]{32}(?:\.\d{10}\.[\w-]{22}){1,8}$/;
/** Characters of one `.<expiry>.<seal>` entry. */
const ENTRY = 34;
const MAX_VALUE = 32 + DEVICE_ACCOUNTS * ENTRY;

/** UTF-8 bytes of a text: the length field that makes a seal's text prefix-free. */
const encoder = new TextEncoder();
const byteLength = (text: string): number =>
  typeof Buffer === "function" ? Buffer.byteLength(text, "utf8") : encoder.encode(text).length;

/**
 * The seal of one account's entry under one secret: a keyed hash of the device id (32
 * characters), the expiry (10), and the account preceded by its length in bytes. A prefix-free
 * text, so no seal can be extended into another one (see {@link keyedHash}).
 */
async function sealOf(secret: string, id: string, expires: string, account: string) {
  const text = `gatehouse-device-seal\u0000${id}${expires}${byteLength(account)}\u0000${account}`;
  return (await keyedHash(secret, text)).slice(0, 22);
}

/** A device cookie from a request: its device id and its entries, not yet checked. */
export interface Device {
  id: string;
  /** `[expiry, seal]` per account, oldest first. */
  entries: [string, string][];
}

/** Whether the request's cookies are secure ones: the device cookie follows the session's. */
const secureCookies = (ctx: Context) => ctx.cookieOptions.sessionToken.options.secure === true;

/**
 * The device cookie on the request, parsed (no crypto: the limiter's fast path); `null` when there
 * is none or it is malformed. Whether it holds an account is {@link holdsAccount}'s question.
 */
export function deviceOf(ctx: Context): Device | null {
  const value = ctx.req.cookies[deviceCookieName(secureCookies(ctx))];
  if (!value || value.length > MAX_VALUE || !SHAPE.test(value)) return null;
  const entries: [string, string][] = [];
  for (let at = 32; at < value.length; at += ENTRY) {
    entries.push([value.slice(at + 1, at + 11), value.slice(at + 12, at + ENTRY)]);
  }
  return { id: value.slice(0, 32), entries };
}

/**
 * Whether the device's cookie holds a live entry for the account, sealed under any secret of the
 * rotation list. Only a successful sign-in to the account writes such an entry.
 */
export async function holdsAccount(
  secrets: string[],
  device: Device,
  account: string,
): Promise<boolean> {
  const now = Date.now() / 1000;
  for (const entry of device.entries) {
    if (Number(entry[0]) > now && (await isEntryOf(secrets, device.id, entry, account))) {
      return true;
    }
  }
  return false;
}

/**
 * The device cookie to set after a successful sign-in to `account`: the request's device (a new
 * one when it had none), with this account's entry written again, last, for another year. The
 * other entries are kept as they are until they end: they are checked when they are used.
 */
export async function deviceCookie(
  ctx: Context,
  account: string,
  device: Device | null,
): Promise<Cookie> {
  const id = device?.id ?? crypto.randomUUID().replaceAll("-", "");
  const now = Math.floor(Date.now() / 1000);
  const expires = String(now + DEVICE_MAX_AGE).padStart(10, "0");
  const seal = await sealOf(ctx.config.secrets[0] as string, id, expires, account);
  let value = id;
  if (device) {
    const kept = [];
    for (const entry of device.entries) {
      if (Number(entry[0]) > now && !(await isEntryOf(ctx.config.secrets, id, entry, account)))
        kept.push(entry);
    }
    for (const [e, s] of kept.slice(Math.max(0, kept.length - (DEVICE_ACCOUNTS - 1)))) {
      value += `.${e}.${s}`;
    }
  }
  value += `.${expires}.${seal}`;
  const secure = secureCookies(ctx);
  return {
    name: deviceCookieName(secure),
    value,
    options: { httpOnly: true, sameSite: "lax", path: "/", secure, maxAge: DEVICE_MAX_AGE },
  };
}

/** Whether an entry is this account's on this device, sealed under any secret of the list. */
async function isEntryOf(
  secrets: string[],
  id: string,
  [expires, seal]: [string, string],
  account: string,
): Promise<boolean> {
  for (const secret of secrets) {
    if (timingSafeEqual(await sealOf(secret, id, expires, account), seal)) return true;
  }
  return false;
}
