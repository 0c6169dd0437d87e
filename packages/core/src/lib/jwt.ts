/**
 * The JWT helpers: encrypted session tokens, interchangeable with Auth.js's.
 */

import { parseCookies, readChunked } from "./cookies.js";
import { fromUtf8, utf8 } from "./crypto/encoding.js";
import { randomUUID } from "./crypto/hash.js";
import { engine, parseJwe, REMEMBERED_TOKENS, Recent } from "./crypto/jwe.js";
import { type ContentEncryption, type DerivedKey, deriveKey } from "./crypto/keys.js";
import { JWTSessionError, MissingSecret } from "./errors.js";
import type { LoggerInstance } from "./types/config.js";
import type { JWTDecodeParams, JWTEncodeParams } from "./types/jwt.js";
import type { Awaitable, JWT } from "./types/models.js";

/** Default lifetime of a session token: 30 days, in seconds. */
export const DEFAULT_MAX_AGE = 30 * 24 * 60 * 60;
/** Seconds of clock skew tolerated on `exp` and `nbf`. */
const CLOCK_TOLERANCE = 15;

const now = () => Math.floor(Date.now() / 1000);

function secretList(secret: string | string[] | undefined): string[] {
  const list = (Array.isArray(secret) ? secret : [secret]).filter(
    (s): s is string => typeof s === "string" && s.length > 0,
  );
  if (list.length === 0) throw new MissingSecret("A secret is required to encode or decode a JWT");
  return list;
}

/**
 * Encrypts a JWT: compact JWE, `dir` + `A256CBC-HS512`, with a key derived from the first secret
 * and the salt. Sets `iat`, `exp` and `jti`.
 *
 * @example
 * ```ts
 * const token = await encode({ token: { sub: "42" }, secret, salt: "authjs.session-token" });
 * ```
 */
export async function encode<Payload extends object = JWT>(
  params: JWTEncodeParams<Payload>,
): Promise<string> {
  const { token = {} as Payload, salt, maxAge = DEFAULT_MAX_AGE } = params;
  const [first] = secretList(params.secret);
  const key = await deriveKey(first!, salt);
  const iat = now();
  const claims = { ...token, iat, exp: iat + maxAge, jti: randomUUID() };
  return engine.encrypt(utf8(JSON.stringify(claims)), key);
}

function checkClaims(payload: unknown): JWT {
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    throw new JWTSessionError("The JWT payload is not an object");
  }
  const claims = payload as JWT;
  for (const claim of ["exp", "nbf", "iat"] as const) {
    if (claims[claim] !== undefined && typeof claims[claim] !== "number") {
      throw new JWTSessionError(`The JWT "${claim}" claim is not a number`);
    }
  }
  const t = now();
  if (typeof claims.exp === "number" && claims.exp <= t - CLOCK_TOLERANCE) {
    throw new JWTSessionError("The JWT has expired");
  }
  if (typeof claims.nbf === "number" && claims.nbf > t + CLOCK_TOLERANCE) {
    throw new JWTSessionError("The JWT is not yet valid");
  }
  return claims;
}

/** The claims of a token that decrypted, parsed and checked once, frozen; its JSON on demand. */
interface RememberedClaims {
  readonly claims: JWT;
  json: string | undefined;
}

/**
 * Claims of the tokens {@link decode} read lately, per key and by the whole token: a browser sends
 * the same session cookie with every request until it is re-issued, and decoding its plaintext
 * again (UTF-8, then JSON) is most of what a remembered decryption still costs. An entry exists
 * only for a token that decrypted under that very key object and parsed to claims that passed
 * their checks once; the checks (expiry, not-before) run again on every read. Nobody outside gets
 * the remembered object: each read gets its own deep copy, so a callback that changes its token
 * cannot change what the next request reads. Bounded like the decryptions ({@link Recent}).
 */
const rememberedClaims = new WeakMap<DerivedKey, Recent<RememberedClaims>>();

/**
 * The remembered JSON of the claims each copy was made from, for a copy {@link decode} handed
 * out just now and that nobody has touched yet (see {@link pristineJson}).
 */
const copiedFrom = new WeakMap<object, RememberedClaims>();

/** A deep copy of a JSON value (what `JSON.parse` makes: plain objects, arrays, primitives). */
function copyJson(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) out.push(copyJson(item));
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = copyJson((value as Record<string, unknown>)[key]);
    // `JSON.parse` makes "__proto__" an own property; an assignment would set the prototype.
    if (key === "__proto__") {
      Object.defineProperty(out, key, {
        value: item,
        writable: true,
        enumerable: true,
        configurable: true,
      });
    } else {
      out[key] = item;
    }
  }
  return out;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

function remember(key: DerivedKey, token: string, claims: JWT): void {
  let recent = rememberedClaims.get(key);
  if (!recent) {
    recent = new Recent(REMEMBERED_TOKENS);
    rememberedClaims.set(key, recent);
  }
  recent.set(token, { claims: deepFreeze(copyJson(claims) as JWT), json: undefined });
}

/**
 * `JSON.stringify(token)` without the work, when `token` is a copy that the built-in
 * {@link decode} just handed out from its memory: the JSON of the claims it was copied from,
 * which a copy nobody has changed stringifies to. Only the caller that got the copy, before it
 * lets any other code see it, may ask, and only once; anything else gets `undefined`.
 * @internal
 */
export function pristineJson(token: object): string | undefined {
  const from = copiedFrom.get(token);
  if (!from) return undefined;
  copiedFrom.delete(token);
  from.json ??= JSON.stringify(from.claims);
  return from.json;
}

/**
 * Decrypts and checks a JWT made by {@link encode} (or by Auth.js). Returns `null` for an empty
 * token and throws a `JWTSessionError` for one that is invalid, tampered with or expired.
 * With a list of secrets, the one whose key matches the token's `kid` is used; a token without
 * `kid` is tried against each.
 */
export async function decode<Payload = JWT>(params: JWTDecodeParams): Promise<Payload | null> {
  const { token, salt } = params;
  if (!token) return null;
  const secrets = secretList(params.secret);
  let jwe: ReturnType<typeof parseJwe>;
  try {
    jwe = parseJwe(token);
  } catch (cause) {
    throw new JWTSessionError("The JWT is malformed", { cause });
  }
  const enc = jwe.header.enc as ContentEncryption;
  const kid = typeof jwe.header.kid === "string" ? jwe.header.kid : undefined;
  let lastError: unknown;
  for (const secret of secrets) {
    const key = await deriveKey(secret, salt, enc);
    if (kid !== undefined && key.kid !== kid) continue;
    const known = rememberedClaims.get(key)?.get(token);
    if (known !== undefined) {
      const copy = copyJson(known.claims) as JWT;
      copiedFrom.set(copy, known);
      return checkClaims(copy) as Payload;
    }
    let plaintext: Uint8Array;
    try {
      plaintext = await engine.decrypt(jwe, key);
    } catch (cause) {
      lastError = cause;
      continue;
    }
    let payload: unknown;
    try {
      payload = JSON.parse(fromUtf8(plaintext));
    } catch {
      throw new JWTSessionError("The JWT payload is not JSON");
    }
    const claims = checkClaims(payload);
    remember(key, token, claims);
    return claims as Payload;
  }
  throw new JWTSessionError(
    kid === undefined ? "No secret decrypts the JWT" : "No secret matches the JWT key id",
    { cause: lastError },
  );
}

/** Parameters of {@link getToken}. */
export interface GetTokenParams<R extends boolean = false> {
  /** The request (or anything with its headers) to read the token from. */
  req: Request | { headers: Headers | Record<string, string | undefined> };
  /** Defaults to the secure session cookie name when `secureCookie`, else `authjs.session-token`. */
  cookieName?: string;
  /** Return the token string as found, without decrypting it. */
  raw?: R;
  decode?: (params: JWTDecodeParams) => Awaitable<JWT | null>;
  logger?: Pick<LoggerInstance, "debug"> | Console;
  /** Defaults to the cookie name. */
  salt?: string;
  secret?: string | string[];
  /**
   * Use the `__Secure-` cookie name. Defaults to true when `AUTH_URL` (or `NEXTAUTH_URL`) is
   * an `https://` URL, false otherwise.
   */
  secureCookie?: boolean;
}

function header(req: GetTokenParams["req"], name: string): string | null {
  const headers = req.headers;
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name);
  // Header names are case-insensitive, also in a plain record.
  for (const [key, value] of Object.entries(headers as Record<string, string | undefined>)) {
    if (value !== undefined && key.toLowerCase() === name) return value;
  }
  return null;
}

function siteIsSecure(): boolean {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
    ?.env;
  const url = env?.AUTH_URL ?? env?.NEXTAUTH_URL;
  return typeof url === "string" && url.startsWith("https://");
}

/**
 * Reads the session JWT from a request's cookies (chunks included) or its
 * `Authorization: Bearer` header, and decrypts it. Anything missing or invalid gives `null`.
 *
 * @example
 * ```ts
 * const token = await getToken({ req: request, secret: process.env.AUTH_SECRET });
 * if (token?.sub) { ... }
 * ```
 */
export async function getToken<R extends boolean = false>(
  params: GetTokenParams<R>,
): Promise<R extends true ? string | null : JWT | null> {
  type Result = R extends true ? string | null : JWT | null;
  const secure = params.secureCookie ?? siteIsSecure();
  const cookieName =
    params.cookieName ?? (secure ? "__Secure-authjs.session-token" : "authjs.session-token");
  const cookies = parseCookies(header(params.req, "cookie"));
  let token = readChunked(cookies, cookieName);
  if (!token) {
    const authorization = header(params.req, "authorization");
    const match = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
    if (match) {
      try {
        token = decodeURIComponent(match[1]!);
      } catch {
        return null as Result;
      }
    }
  }
  if (!token) return null as Result;
  if (params.raw) return token as Result;
  const secret = params.secret;
  if (!secret || (Array.isArray(secret) && secret.length === 0)) {
    throw new MissingSecret("getToken needs a secret to decrypt the token");
  }
  try {
    const decoder = params.decode ?? decode;
    return (await decoder({ token, secret, salt: params.salt ?? cookieName })) as Result;
  } catch (error) {
    params.logger?.debug?.("getToken: the token could not be decoded", {
      type: error instanceof JWTSessionError ? error.message : "decode failed",
    });
    return null as Result;
  }
}
