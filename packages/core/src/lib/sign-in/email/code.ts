/**
 * One-time sign-in codes: made at send time, stored as a keyed hash bound to the browser that
 * asked (through a random nonce in an encrypted cookie), and checked on the verify-request page.
 */
import type { Context } from "../../context.js";
import { expireCookie } from "../../cookies.js";
import { hex, utf8 } from "../../crypto/encoding.js";
import { sha256Hex, timingSafeEqual } from "../../crypto/hash.js";
import { nodeCrypto } from "../../crypto/node.js";
import { AuthError } from "../../errors.js";
import { decode, encode } from "../../jwt.js";
import type { Cookie } from "../../types/config.js";
import type { EmailConfig } from "../../types/providers.js";

/** Tries of one code, each counted before it is checked; the last one, if wrong, invalidates it. */
export const MAX_CODE_TRIES = 5;

const DIGITS = "0123456789";

/** The code's shape, checked: `true` gives 8 digits. */
export interface CodeShape {
  length: number;
  alphabet: string;
}

/**
 * The code shape of a provider, or `undefined` when it sends no codes. A shape that makes a code
 * guessable (under 20 bits) or that cannot be typed (repeated or whitespace characters) is a
 * configuration error.
 */
export function codeShape(provider: EmailConfig): CodeShape | undefined {
  const option = provider.code;
  if (!option) return undefined;
  const shape = option === true ? {} : option;
  const length = shape.length ?? 8;
  const alphabet = shape.alphabet ?? DIGITS;
  const chars = [...alphabet];
  const distinct = new Set(chars).size === chars.length;
  if (
    !Number.isInteger(length) ||
    length < 4 ||
    length > 32 ||
    chars.length < 2 ||
    chars.length > 256 ||
    !distinct ||
    /\s/u.test(alphabet) ||
    length * Math.log2(chars.length) < 20
  ) {
    throw new AuthError(
      `The code option of email provider "${provider.id}" is invalid: 4 to 32 characters from 2 to 256 distinct non-space characters, at least 20 bits`,
    );
  }
  return { length, alphabet };
}

function randomBytes(n: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(n));
}

/** A fresh code: each character drawn uniformly from the alphabet (rejection sampling). */
export function generateCode(shape: CodeShape): string {
  const chars = [...shape.alphabet];
  // The largest multiple of the alphabet size that fits in a byte: bytes above it are redrawn.
  const limit = 256 - (256 % chars.length);
  let code = "";
  while ([...code].length < shape.length) {
    for (const byte of randomBytes(shape.length * 2)) {
      if (byte >= limit) continue;
      code += chars[byte % chars.length];
      if ([...code].length === shape.length) break;
    }
  }
  return code;
}

/**
 * What the user typed, as the code would be written: spaces and dashes dropped (unless the
 * alphabet has them), upper case when the alphabet has no lower-case letter (and lower case when
 * it has no upper-case one). `undefined` when it cannot be a code of this shape.
 */
export function normalizeCodeInput(input: unknown, shape: CodeShape): string | undefined {
  if (typeof input !== "string" || input.length > 256) return undefined;
  let text = input.normalize("NFKC").replace(/\s+/gu, "");
  if (!shape.alphabet.includes("-")) text = text.replaceAll("-", "");
  const hasLower = shape.alphabet !== shape.alphabet.toUpperCase();
  const hasUpper = shape.alphabet !== shape.alphabet.toLowerCase();
  if (hasUpper && !hasLower) text = text.toUpperCase();
  else if (hasLower && !hasUpper) text = text.toLowerCase();
  const chars = [...text];
  if (chars.length !== shape.length || !chars.every((c) => shape.alphabet.includes(c))) {
    return undefined;
  }
  return text;
}

async function hmacHex(secret: string, message: string): Promise<string> {
  if (nodeCrypto) return nodeCrypto.createHmac("sha256", secret).update(message).digest("hex");
  const key = await crypto.subtle.importKey(
    "raw",
    utf8(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return hex(new Uint8Array(await crypto.subtle.sign("HMAC", key, utf8(message))));
}

/**
 * The verification-token value stored for a code: HMAC-SHA256 under the secret of the browser's
 * nonce, the address and the code. Without the secret and the nonce, neither a copy of the
 * database nor the email alone tells anything that signs in.
 */
export function codeHash(secret: string, nonce: string, identifier: string, code: string) {
  return hmacHex(secret, `gatehouse.email-code|${nonce}|${identifier}|${code}`);
}

/** What the email-code cookie carries, encrypted. */
export interface CodeBinding {
  /** The browser's nonce. */
  nonce: string;
  /** The address the code was mailed to. */
  identifier: string;
  /** The email provider. */
  provider: string;
  /** The stored hash of the code (to invalidate it after the last wrong try). */
  codeHash: string;
  /** The stored hash of the link's token (spent with the code). */
  linkHash: string;
  /** When the code ends, in milliseconds since the epoch. */
  expires: number;
  /**
   * Where the sign-in lands, resolved when the code was sent (as the mailed link carries it), so
   * a later visit to a sign-in page (a router's prefetch of a protected page, another tab) that
   * rewrites the callback-url cookie does not move it.
   */
  callbackUrl?: string;
}

interface SealedBinding {
  n: string;
  e: string;
  p: string;
  h: string;
  l: string;
  x: number;
  c?: string;
}

/** The cookie that binds a code to this browser, for the link's lifetime. */
export async function sealBinding(
  ctx: Context,
  binding: CodeBinding,
  maxAge: number,
): Promise<Cookie> {
  const { name, options } = ctx.cookieOptions.emailCode;
  const token: SealedBinding = {
    n: binding.nonce,
    e: binding.identifier,
    p: binding.provider,
    h: binding.codeHash,
    l: binding.linkHash,
    x: binding.expires,
    // A landing too long for a cookie beside the rest is left to the callback-url cookie.
    ...(binding.callbackUrl === undefined || binding.callbackUrl.length > 1024
      ? {}
      : { c: binding.callbackUrl }),
  };
  const value = await encode({ token, secret: ctx.config.secrets, salt: name, maxAge });
  return {
    name,
    value,
    options: { ...options, maxAge, expires: new Date(binding.expires) },
  };
}

/**
 * The binding this browser holds for `providerId`, or `undefined` when it holds none (no cookie,
 * one that does not decrypt, has expired, or was made for another provider).
 */
export async function openBinding(
  ctx: Context,
  providerId: string,
): Promise<CodeBinding | undefined> {
  const { name } = ctx.cookieOptions.emailCode;
  const sealed = ctx.req.cookies[name];
  if (!sealed) return undefined;
  let claims: Partial<SealedBinding> | null;
  try {
    claims = await decode<Partial<SealedBinding>>({
      token: sealed,
      secret: ctx.config.secrets,
      salt: name,
    });
  } catch {
    return undefined;
  }
  if (
    !claims ||
    typeof claims.n !== "string" ||
    typeof claims.e !== "string" ||
    typeof claims.h !== "string" ||
    typeof claims.l !== "string" ||
    typeof claims.x !== "number" ||
    claims.p !== providerId
  ) {
    return undefined;
  }
  return {
    nonce: claims.n,
    identifier: claims.e,
    provider: claims.p,
    codeHash: claims.h,
    linkHash: claims.l,
    expires: claims.x,
    ...(typeof claims.c === "string" ? { callbackUrl: claims.c } : {}),
  };
}

/** Queues the deletion of the email-code cookie. */
export function forgetBinding(ctx: Context): void {
  const { name, options } = ctx.cookieOptions.emailCode;
  if (name in ctx.req.cookies) ctx.setCookies.push(expireCookie(name, options));
}

/**
 * The rate-limit store key counting the tries of one binding, for adapters without
 * `countVerificationTokenTry`: no secret, no address in it.
 */
export async function triesKey(binding: CodeBinding): Promise<string> {
  return `email-code:${await sha256Hex(`${binding.nonce}|${binding.identifier}`)}`;
}

/** Whether `candidate` is the hash in the binding, compared in constant time. */
export function sameHash(candidate: string, stored: string): boolean {
  return timingSafeEqual(candidate, stored);
}
