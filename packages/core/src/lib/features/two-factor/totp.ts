/**
 * Time-based one-time passwords (RFC 6238, over HOTP of RFC 4226), the secret's base32 spelling
 * (RFC 4648 §6) and the `otpauth://` URI authenticator apps scan (Google's Key URI Format).
 *
 * Written on WebCrypto alone (`crypto.subtle` HMAC), so it runs unchanged on an edge worker. A
 * verified code answers with its time step, which the caller stores as the user's last used step
 * and passes back next time: a code of that step or an earlier one is refused, so no code works
 * twice, not even within its own 30 seconds.
 */
import { timingSafeEqual } from "../../crypto/hash.js";

/** The HMAC hashes RFC 6238 names; SHA-1 is what every authenticator app reads. */
export type TotpAlgorithm = "SHA-1" | "SHA-256" | "SHA-512";

/** How codes are made: the same values must be given to the authenticator app (see {@link otpauthUri}). */
export interface TotpOptions {
  /** Seconds per time step. Default 30. */
  period?: number;
  /** Digits per code, 6 to 8. Default 6. */
  digits?: number;
  /** The HMAC hash. Default `"SHA-1"`. */
  algorithm?: TotpAlgorithm;
}

/** The options of {@link verifyTotp}. */
export interface VerifyTotpOptions extends TotpOptions {
  /** The time to check against, as a `Date` or milliseconds since the epoch. Default: now. */
  now?: Date | number;
  /**
   * The step of the last code this user had accepted, as {@link verifyTotp} returned it; a code of
   * this step or an earlier one is refused. `null` or absent for a user who never used one.
   */
  lastUsedStep?: number | null;
  /** Steps of clock skew allowed on each side of the current one. Default 1. */
  window?: number;
}

/** Bytes in a secret from {@link generateTotpSecret}: 160 bits, RFC 4226's recommendation. */
export const TOTP_SECRET_BYTES = 20;

const base32Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** Bytes as RFC 4648 base32: upper case, without padding (as authenticator apps expect it). */
export function base32Encode(bytes: Uint8Array): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += base32Alphabet.charAt((buffer >>> bits) & 31);
    }
  }
  if (bits > 0) out += base32Alphabet.charAt((buffer << (5 - bits)) & 31);
  return out;
}

/**
 * Decodes RFC 4648 base32 as people copy it: either case, spaces and hyphens between groups,
 * trailing `=` padding or none. Throws a `TypeError` on any other character and on a length no
 * byte string has.
 */
export function base32Decode(text: string): Uint8Array<ArrayBuffer> {
  const bare = text
    .replace(/[\s-]+/g, "")
    .replace(/=+$/, "")
    .toUpperCase();
  // 1, 3 or 6 characters past a multiple of 8 would end in a partial byte of no use.
  if ([1, 3, 6].includes(bare.length % 8)) throw new TypeError("invalid base32");
  const out = new Uint8Array(Math.floor((bare.length * 5) / 8));
  let buffer = 0;
  let bits = 0;
  let index = 0;
  for (const char of bare) {
    const value = base32Alphabet.indexOf(char);
    if (value < 0) throw new TypeError("invalid base32");
    buffer = ((buffer << 5) | value) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out[index++] = (buffer >>> bits) & 0xff;
    }
  }
  return out;
}

/**
 * A new random TOTP secret of 160 bits, in base32 (32 characters): the form shown to the user,
 * put in the `otpauth://` URI, and sealed for storage (./secret-box.ts).
 *
 * @example
 * ```ts
 * const secret = generateTotpSecret(); // "JBSWY3DPEHPK3PXP…"
 * ```
 */
export function generateTotpSecret(): string {
  return base32Encode(crypto.getRandomValues(new Uint8Array(TOTP_SECRET_BYTES)));
}

interface Resolved {
  period: number;
  digits: number;
  algorithm: TotpAlgorithm;
}

function resolve(options: TotpOptions): Resolved {
  const { period = 30, digits = 6, algorithm = "SHA-1" } = options;
  if (!Number.isSafeInteger(period) || period < 1) throw new RangeError("invalid TOTP period");
  if (!Number.isInteger(digits) || digits < 6 || digits > 8) {
    throw new RangeError("TOTP digits must be 6, 7 or 8");
  }
  if (algorithm !== "SHA-1" && algorithm !== "SHA-256" && algorithm !== "SHA-512") {
    throw new RangeError("unsupported TOTP algorithm");
  }
  return { period, digits, algorithm };
}

function secretBytes(secret: string | Uint8Array): Uint8Array<ArrayBuffer> {
  const bytes = typeof secret === "string" ? base32Decode(secret) : new Uint8Array(secret);
  if (bytes.byteLength === 0) throw new TypeError("empty TOTP secret");
  return bytes;
}

function importSecret(secret: string | Uint8Array, algorithm: TotpAlgorithm): Promise<CryptoKey> {
  return crypto.subtle.importKey(
    "raw",
    secretBytes(secret),
    { name: "HMAC", hash: algorithm },
    false,
    ["sign"],
  );
}

/** RFC 4226 §5.3: HMAC over the 8-byte big-endian counter, then dynamic truncation. */
async function hotp(key: CryptoKey, counter: number, digits: number): Promise<string> {
  const message = new DataView(new ArrayBuffer(8));
  message.setUint32(0, Math.floor(counter / 2 ** 32));
  message.setUint32(4, counter >>> 0);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, message.buffer));
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary =
    ((mac[offset]! & 0x7f) << 24) |
    (mac[offset + 1]! << 16) |
    (mac[offset + 2]! << 8) |
    mac[offset + 3]!;
  return (binary % 10 ** digits).toString().padStart(digits, "0");
}

function checkStep(step: number): void {
  if (!Number.isSafeInteger(step) || step < 0) throw new RangeError("invalid TOTP time step");
}

/** The time step (RFC 6238 `T`, with `T0` = 0) that `now` falls in. */
export function totpStep(now: Date | number = Date.now(), period = 30): number {
  const ms = typeof now === "number" ? now : now.getTime();
  return Math.floor(ms / 1000 / resolve({ period }).period);
}

/**
 * The code of time step `step` (see {@link totpStep}); `secret` is base32 or raw bytes.
 *
 * @example
 * ```ts
 * const code = await totpCode(secret, totpStep(Date.now()));
 * ```
 */
export async function totpCode(
  secret: string | Uint8Array,
  step: number,
  options: TotpOptions = {},
): Promise<string> {
  const { digits, algorithm } = resolve(options);
  checkStep(step);
  return hotp(await importSecret(secret, algorithm), step, digits);
}

/**
 * Checks a code typed by the user. Returns the time step it belongs to, to be stored as the
 * user's `lastUsedStep`, or `null`: a code of the wrong length or with anything but digits
 * (spaces between them are ignored), a code outside the window, or one of a step at or before
 * `lastUsedStep`. Never throws over the code; it does throw over bad options or a bad secret,
 * which are the server's mistakes.
 *
 * The caller must store the returned step so that a concurrent check of the same code cannot
 * also succeed (a compare-and-set on the stored step), and must rate-limit tries: with the default
 * window three codes in a million are right.
 *
 * @example
 * ```ts
 * const step = await verifyTotp(secret, input, { lastUsedStep: user.totpLastStep });
 * if (step === null) return refuse();
 * await saveLastStep(user, step);
 * ```
 */
export async function verifyTotp(
  secret: string | Uint8Array,
  code: unknown,
  options: VerifyTotpOptions = {},
): Promise<number | null> {
  const { period, digits, algorithm } = resolve(options);
  const { window = 1, lastUsedStep = null } = options;
  if (!Number.isSafeInteger(window) || window < 0 || window > 10) {
    throw new RangeError("invalid TOTP window");
  }
  const key = await importSecret(secret, algorithm);
  if (typeof code !== "string") return null;
  const typed = code.replace(/\s+/g, "");
  if (typed.length !== digits || !/^[0-9]+$/.test(typed)) return null;
  const current = totpStep(options.now ?? Date.now(), period);
  let matched: number | null = null;
  // Every step in the window is computed and compared, a match or not, so the time taken says
  // nothing about which step (if any) matched. The earliest unused match wins: it leaves the
  // later steps usable for the user's next code.
  for (let step = current - window; step <= current + window; step++) {
    if (step < 0 || (lastUsedStep !== null && step <= lastUsedStep)) continue;
    const equal = timingSafeEqual(await hotp(key, step, digits), typed);
    if (equal && matched === null) matched = step;
  }
  return matched;
}

/** The options of {@link otpauthUri}. */
export interface OtpauthUriOptions extends TotpOptions {
  /** The app's name as the authenticator app shows it; it may not contain a colon. */
  issuer: string;
  /** The user's name or address within the app (percent-encoded, so any text will do). */
  account: string;
  /** The secret, base32 (any spelling {@link base32Decode} reads) or raw bytes. */
  secret: string | Uint8Array;
}

const keyUriAlgorithm: Record<TotpAlgorithm, string> = {
  "SHA-1": "SHA1",
  "SHA-256": "SHA256",
  "SHA-512": "SHA512",
};

/**
 * The `otpauth://totp/…` URI to show as a QR code (./qr.ts) at enrolment. The label is
 * `Issuer:account`, and the issuer is repeated as a parameter (as the Key URI Format asks), each
 * part percent-encoded; the secret is written in canonical base32.
 *
 * @example
 * ```ts
 * otpauthUri({ issuer: "Example", account: "alice@example.com", secret });
 * // "otpauth://totp/Example:alice%40example.com?secret=…&issuer=Example&algorithm=SHA1&digits=6&period=30"
 * ```
 */
export function otpauthUri(options: OtpauthUriOptions): string {
  const { issuer, account } = options;
  const { period, digits, algorithm } = resolve(options);
  // The label's first colon, encoded or not, ends the issuer in the apps' parsers: an issuer with
  // one would be cut short. The account is user data and comes after it, so it is only encoded.
  if (issuer.includes(":")) throw new TypeError("the otpauth issuer may not contain a colon");
  const secret = base32Encode(secretBytes(options.secret));
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const query = [
    `secret=${secret}`,
    `issuer=${encodeURIComponent(issuer)}`,
    `algorithm=${keyUriAlgorithm[algorithm]}`,
    `digits=${digits}`,
    `period=${period}`,
  ].join("&");
  return `otpauth://totp/${label}?${query}`;
}
