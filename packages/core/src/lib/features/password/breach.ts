/**
 * The breached-password range check (docs/passwords.md): the k-anonymity protocol of Have I Been
 * Pwned's Pwned Passwords API. Only the first 5 hex characters of the password's SHA-1 leave the
 * server; the answer lists every known suffix under that prefix, padded with decoys, and the
 * comparison happens here.
 *
 * Thin on purpose: {@link rangeRequest} builds the request, {@link breachCount} reads the answer
 * (a pure function), and the check between them handles the network's failures.
 */
import { hex, utf8 } from "../../crypto/encoding.js";

/**
 * Told by a {@link BreachCheck} that it could not answer (network error, timeout, an answer other
 * than 200, or one it cannot read). The password policy passes one and turns it into a single
 * warning line; `reason` never holds the password, its hash or the hash's prefix.
 */
export interface BreachCheckReport {
  unavailable(reason: Error): void;
}

/**
 * Whether a password is known from breaches: `true` refuses it (as `PasswordTooCommon`, with the
 * same message as a common password). It receives the password as the policy normalised it
 * (NFKC). A check that throws or rejects is treated as unavailable: the password policy logs a
 * warning and accepts the password; a check that should refuse when it cannot answer resolves
 * `true` instead (as {@link pwnedPasswordsRange} does with `onError: "refuse"`).
 */
export type BreachCheck = (password: string, report?: BreachCheckReport) => Promise<boolean>;

/** The options of {@link pwnedPasswordsRange}. */
export interface PwnedPasswordsRangeOptions {
  /**
   * The URL the 5-character prefix is appended to; it ends with `/`. `https:`, or `http:` on a
   * loopback host (a local mirror, a test server). Default `https://api.pwnedpasswords.com/range/`.
   */
  endpoint?: string;
  /** The `fetch` to send the request with. Default: the global `fetch`, read at each check. */
  fetch?: typeof fetch;
  /** How long the request and its answer may take, in milliseconds. Default 2,000. */
  timeoutMs?: number;
  /** How many times a password must have been seen to count as breached. Default 1. */
  minCount?: number;
  /**
   * What a check that gets no usable answer says: `"allow"` (the default) accepts the password,
   * `"refuse"` refuses it as breached. Either way the reason is reported (the policy logs it).
   */
  onError?: "allow" | "refuse";
}

interface Settings {
  endpoint: string;
  fetch: typeof fetch | undefined;
  timeoutMs: number;
  minCount: number;
  onError: "allow" | "refuse";
}

/** Have I Been Pwned's range endpoint. */
export const PWNED_PASSWORDS_ENDPOINT = "https://api.pwnedpasswords.com/range/";

/** A padded answer is about 40 KB; anything past this is not one. */
const MAX_ANSWER_BYTES = 2 ** 20;
const LINE = /^([0-9A-Fa-f]{35}):(\d{1,10})$/;
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);
const KNOWN = new Set(["endpoint", "fetch", "timeoutMs", "minCount", "onError"]);

function invalid(option: string, expected: string): TypeError {
  return new TypeError(`pwnedPasswordsRange: \`${option}\` must be ${expected}`);
}

function endpointOf(value: unknown): string {
  if (value === undefined) return PWNED_PASSWORDS_ENDPOINT;
  const expected =
    "an https: URL (http: on a loopback host) ending with /, without a query or fragment";
  if (typeof value !== "string") throw invalid("endpoint", expected);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid("endpoint", expected);
  }
  const secure =
    url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK.has(url.hostname));
  if (!secure || !value.endsWith("/") || value.includes("?") || value.includes("#")) {
    throw invalid("endpoint", expected);
  }
  return value;
}

function settingsOf(options: PwnedPasswordsRangeOptions | undefined): Settings {
  if (options !== undefined && (options === null || typeof options !== "object")) {
    throw new TypeError("pwnedPasswordsRange: the options must be an object");
  }
  const given = options ?? {};
  for (const key of Object.keys(given)) {
    if (!KNOWN.has(key)) throw new TypeError(`pwnedPasswordsRange: unknown option \`${key}\``);
  }
  const { fetch: customFetch, timeoutMs = 2000, minCount = 1, onError = "allow" } = given;
  if (customFetch !== undefined && typeof customFetch !== "function") {
    throw invalid("fetch", "a function");
  }
  if (typeof timeoutMs !== "number" || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw invalid("timeoutMs", "a positive number of milliseconds");
  }
  if (!Number.isSafeInteger(minCount) || minCount < 1) {
    throw invalid("minCount", "a whole number from 1");
  }
  if (onError !== "allow" && onError !== "refuse") {
    throw invalid("onError", '"allow" or "refuse"');
  }
  return { endpoint: endpointOf(given.endpoint), fetch: customFetch, timeoutMs, minCount, onError };
}

/** Uppercase hex SHA-1 of the UTF-8 password (WebCrypto, so Workers and browsers can run it). */
export async function sha1Hex(password: string): Promise<string> {
  return hex(new Uint8Array(await crypto.subtle.digest("SHA-1", utf8(password)))).toUpperCase();
}

/** The range request for a 5-character prefix: only the prefix, and padding asked for. */
export function rangeRequest(endpoint: string, prefix: string): { url: string; init: RequestInit } {
  return { url: `${endpoint}${prefix}`, init: { headers: { "Add-Padding": "true" } } };
}

/**
 * How often `suffix` (35 hex characters) was seen according to a range answer: `SUFFIX:COUNT`
 * lines, CRLF or LF. Padding lines (count 0) count as absent. `null` when a line is not of that
 * form: an answer that cannot be read says nothing.
 */
export function breachCount(answer: string, suffix: string): number | null {
  const wanted = suffix.toUpperCase();
  let found = 0;
  for (const line of answer.split("\n")) {
    const entry = line.endsWith("\r") ? line.slice(0, -1) : line;
    if (entry === "") continue;
    const match = LINE.exec(entry);
    if (!match) return null;
    if (match[1]?.toUpperCase() === wanted) found = Math.max(found, Number(match[2]));
  }
  return found;
}

/** Why a check got no usable answer; its message names no password, hash or prefix. */
class RangeUnavailable extends Error {
  override name = "BreachCheckUnavailable";
}

/** The answer's text, at most {@link MAX_ANSWER_BYTES}. */
async function readAnswer(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    bytes += value.byteLength;
    if (bytes > MAX_ANSWER_BYTES) {
      await reader.cancel().catch(() => {});
      throw new RangeUnavailable("the range endpoint's answer is larger than 1 MiB");
    }
    text += decoder.decode(value, { stream: true });
  }
}

async function fetchRange(settings: Settings, prefix: string, signal: AbortSignal) {
  const { url, init } = rangeRequest(settings.endpoint, prefix);
  const send = settings.fetch ?? globalThis.fetch;
  try {
    const response = await send(url, { ...init, signal });
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => {});
      throw new RangeUnavailable(`the range endpoint answered ${response.status}`);
    }
    return await readAnswer(response);
  } catch (error) {
    if (error instanceof RangeUnavailable) throw error;
    // The error's message may quote the URL, and with it the prefix: only its name is kept.
    const name = error instanceof Error ? error.name : typeof error;
    throw new RangeUnavailable(`the range request failed (${name})`);
  }
}

/** The range answer for `prefix`, or a {@link RangeUnavailable} once `timeoutMs` have passed. */
async function rangeOf(settings: Settings, prefix: string): Promise<string> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  // A fetch that ignores its signal still loses the race.
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(
        new RangeUnavailable(`the range endpoint did not answer within ${settings.timeoutMs} ms`),
      );
    }, settings.timeoutMs);
  });
  try {
    return await Promise.race([fetchRange(settings, prefix, controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A {@link BreachCheck} that asks a Pwned Passwords range endpoint (Have I Been Pwned's by
 * default) whether a password appears in known breaches, for the password policy's `breachCheck`
 * option. It sends the first 5 characters of the uppercase hex SHA-1 of the UTF-8 password
 * (normalised to NFKC) with `Add-Padding: true`, and compares the other 35 with the answer's
 * suffixes; padding entries (count 0) are ignored. Nothing else about the password leaves the
 * server.
 *
 * When the endpoint cannot be reached, does not answer within `timeoutMs`, answers other than
 * 200, or sends something other than `SUFFIX:COUNT` lines, the check reports it (the policy logs
 * one warning line, without the password, its hash or the prefix) and answers as `onError` says:
 * not breached by default, so an outage of the service does not stop sign-ups.
 *
 * @throws TypeError, naming the option, when an option is malformed.
 *
 * @example
 * ```ts
 * const policy = resolvePasswordPolicy({ breachCheck: pwnedPasswordsRange({ timeoutMs: 1500 }) });
 * ```
 */
export function pwnedPasswordsRange(options?: PwnedPasswordsRangeOptions): BreachCheck {
  const settings = settingsOf(options);
  return async (password, report) => {
    const hash = await sha1Hex(password.normalize("NFKC"));
    try {
      const count = breachCount(await rangeOf(settings, hash.slice(0, 5)), hash.slice(5));
      if (count === null) throw new RangeUnavailable("the range endpoint's answer is malformed");
      return count >= settings.minCount;
    } catch (error) {
      const reason = error instanceof RangeUnavailable ? error.message : "it failed";
      const outcome = settings.onError === "allow" ? "accepted without it" : "refused";
      report?.unavailable(
        new RangeUnavailable(
          `The breached-password check could not answer: ${reason}; the password was ${outcome}`,
        ),
      );
      return settings.onError === "refuse";
    }
  };
}
