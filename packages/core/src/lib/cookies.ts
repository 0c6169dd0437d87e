/**
 * Cookie names, parsing, serialisation and session-cookie chunking, with the Auth.js wire format.
 */
import type {
  Cookie,
  CookieAttributes,
  CookiesOptions,
  PartialCookiesOptions,
} from "./types/config.js";

/** Characters of cookie value per chunk: a 4096-byte cookie less an estimated 160 of overhead. */
export const CHUNK_SIZE = 3936;
/** Chunks read back at most; anything beyond is ignored as hostile. */
export const MAX_CHUNKS = 32;

/** The default cookies, with `__Secure-` / `__Host-` names when `secure`. */
export function defaultCookies(secure: boolean): CookiesOptions {
  const prefix = secure ? "__Secure-" : "";
  const base = (): CookieAttributes => ({ httpOnly: true, sameSite: "lax", path: "/", secure });
  const check = (): CookieAttributes => ({ ...base(), maxAge: 60 * 15 });
  return {
    sessionToken: { name: `${prefix}authjs.session-token`, options: base() },
    callbackUrl: { name: `${prefix}authjs.callback-url`, options: base() },
    csrfToken: { name: `${secure ? "__Host-" : ""}authjs.csrf-token`, options: base() },
    pkceCodeVerifier: { name: `${prefix}authjs.pkce.code_verifier`, options: check() },
    state: { name: `${prefix}authjs.state`, options: check() },
    nonce: { name: `${prefix}authjs.nonce`, options: check() },
    webauthnChallenge: { name: `${prefix}authjs.challenge`, options: check() },
    emailCode: { name: `${prefix}gatehouse.email-code`, options: base() },
    signInChallenge: { name: `${prefix}gatehouse.sign-in-challenge`, options: check() },
    signInBinding: { name: `${prefix}gatehouse.sign-in-binding`, options: check() },
    twoFactorTrust: {
      name: `${prefix}gatehouse.two-factor-trust`,
      options: { ...base(), maxAge: 30 * 24 * 60 * 60 },
    },
  };
}

/**
 * The name of the device cookie that the credentials backoff reads (docs/rate-limits.md): a
 * Gatehouse cookie, with the `__Secure-` prefix when cookies are secure.
 */
export function deviceCookieName(secure: boolean): string {
  return secure ? "__Secure-gatehouse.device" : "gatehouse.device";
}

/** The defaults with the user's overrides merged in, per cookie and per attribute. */
export function resolveCookies(
  secure: boolean,
  overrides: PartialCookiesOptions | undefined,
): CookiesOptions {
  const cookies = defaultCookies(secure);
  if (!overrides) return cookies;
  for (const key of Object.keys(cookies) as (keyof CookiesOptions)[]) {
    const own = overrides[key];
    if (!own) continue;
    cookies[key] = {
      name: own.name ?? cookies[key].name,
      options: { ...cookies[key].options, ...own.options },
    };
  }
  return cookies;
}

/** Whether a UTF-16 code unit is the cookie grammar's optional whitespace: a space or a tab. */
const isOws = (code: number) => code === 0x20 || code === 0x09;

/**
 * `header` from `start` to `end`, less the optional whitespace of the cookie grammar at either
 * end: spaces and tabs, nothing else. A loop over indexes, not a regular expression nor a split:
 * the session cookie's value is hundreds of characters, read on every request.
 */
function trimmed(header: string, start: number, end: number): string {
  while (start < end && isOws(header.charCodeAt(start))) start++;
  while (end > start && isOws(header.charCodeAt(end - 1))) end--;
  return header.slice(start, end);
}

/** Parses a `Cookie` header. The first occurrence of a name wins; undecodable values stay raw. */
export function parseCookies(header: string | null): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  if (!header) return out;
  const length = header.length;
  // The next "=" at or after the current part's start (-1: none left), kept across parts so that
  // a header of many parts without one is still read in one pass.
  let eq = header.indexOf("=");
  let start = 0;
  while (start <= length) {
    let end = header.indexOf(";", start);
    if (end === -1) end = length;
    if (eq !== -1 && eq < start) eq = header.indexOf("=", start);
    if (eq !== -1 && eq > start && eq < end) {
      const name = trimmed(header, start, eq);
      if (name && !(name in out)) {
        let value = trimmed(header, eq + 1, end);
        if (value.length >= 2 && value.charCodeAt(0) === 0x22 && value.endsWith('"'))
          value = value.slice(1, -1);
        if (value.includes("%")) {
          try {
            value = decodeURIComponent(value);
          } catch {
            // Keep the raw value: whoever reads it rejects it, and can then clear it.
          }
        }
        out[name] = value;
      }
    }
    start = end + 1;
  }
  return out;
}

/** The text with each lone surrogate (which `encodeURIComponent` throws on) replaced by U+FFFD. */
function wellFormed(text: string): string {
  return (text as string & { toWellFormed(): string }).toWellFormed();
}

/** Serialises a cookie for `Set-Cookie`, attributes in the order Auth.js writes them. */
export function serializeCookie(cookie: Cookie): string {
  const o = cookie.options;
  let out = `${cookie.name}=${encodeURIComponent(wellFormed(cookie.value))}`;
  if (o.maxAge !== undefined) out += `; Max-Age=${Math.floor(o.maxAge)}`;
  if (o.domain) out += `; Domain=${o.domain}`;
  if (o.path) out += `; Path=${o.path}`;
  if (o.expires) out += `; Expires=${o.expires.toUTCString()}`;
  if (o.httpOnly) out += "; HttpOnly";
  if (o.secure) out += "; Secure";
  if (o.partitioned) out += "; Partitioned";
  if (o.priority) out += `; Priority=${o.priority[0]!.toUpperCase()}${o.priority.slice(1)}`;
  if (o.sameSite) out += `; SameSite=${o.sameSite[0]!.toUpperCase()}${o.sameSite.slice(1)}`;
  return out;
}

/** A cookie that deletes `name`: empty value and `Max-Age=0`, same path and flags. */
export function expireCookie(name: string, options: CookieAttributes): Cookie {
  const { expires: _expires, ...rest } = options;
  return { name, value: "", options: { ...rest, maxAge: 0 } };
}

const chunkSuffix = /^\.(\d{1,2})$/;

/** The names of every cookie on the request that holds part of the session `name`. */
export function chunkNames(cookies: Record<string, string>, name: string): string[] {
  const names: string[] = [];
  for (const key in cookies) {
    if (key === name || (key.startsWith(name) && chunkSuffix.test(key.slice(name.length)))) {
      names.push(key);
    }
  }
  return names;
}

/** Reassembles a possibly chunked cookie: `name`, or `name.0`, `name.1`, … in order. */
export function readChunked(cookies: Record<string, string>, name: string): string | undefined {
  const first = cookies[`${name}.0`];
  if (first === undefined) return cookies[name] || undefined;
  let value = first;
  for (let i = 1; i < MAX_CHUNKS; i++) {
    const next = cookies[`${name}.${i}`];
    if (next === undefined) break;
    value += next;
  }
  return value || undefined;
}

/**
 * The cookies that store `value` under `name`, chunked past {@link CHUNK_SIZE}, plus deletions
 * for every stale chunk the request carried.
 */
export function writeChunked(
  cookies: Record<string, string>,
  name: string,
  value: string,
  options: CookieAttributes,
): Cookie[] {
  const out = new Map<string, Cookie>();
  for (const stale of chunkNames(cookies, name)) out.set(stale, expireCookie(stale, options));
  if (value.length <= CHUNK_SIZE) {
    out.set(name, { name, value, options });
  } else {
    for (let i = 0; i * CHUNK_SIZE < value.length; i++) {
      const chunk = `${name}.${i}`;
      out.set(chunk, {
        name: chunk,
        value: value.slice(i * CHUNK_SIZE, (i + 1) * CHUNK_SIZE),
        options,
      });
    }
  }
  return [...out.values()];
}

/** Deletions for every chunk of `name` the request carried. */
export function clearChunked(
  cookies: Record<string, string>,
  name: string,
  options: CookieAttributes,
): Cookie[] {
  return chunkNames(cookies, name).map((stale) => expireCookie(stale, options));
}
