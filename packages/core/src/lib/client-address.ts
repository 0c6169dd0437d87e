/**
 * The client's address, as far as Gatehouse can know it: the app's `clientAddress` hook when set,
 * else `X-Forwarded-For` read through the trusted proxies (`trustedProxies`, `AUTH_TRUSTED_PROXIES`),
 * else unknown. `X-Forwarded-For` is never read without `trustedProxies`: anyone can send it.
 *
 * The address parsing is pure (strings in, strings out); {@link clientAddress} applies it to a
 * request once and remembers the answer for the rest of that request.
 */
import { AuthError } from "./errors.js";
import { clientAddressFallback } from "./symbols.js";
import type { ClientAddressResolver, ClientIp, TrustedProxies } from "./types/client-address.js";
import type { LoggerInstance } from "./types/config.js";
import type { RequestInternal } from "./types/internal.js";

/** An address: four bytes, or eight 16-bit groups. */
export type IpAddress = ClientIp;

/** A CIDR range of trusted proxies. */
interface CidrRange {
  ip: IpAddress;
  bits: number;
}

/** `trustedProxies` after checking: a number of hops, or ranges. */
export type ProxyTrust = { hops: number } | { ranges: CidrRange[] };

/** Four decimal parts of 1 to 3 digits, each at most 255; scanned by hand (the hot path). */
function parseIpv4(text: string): number[] | null {
  const parts: number[] = [];
  let value = 0;
  let digits = 0;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 46; // a final "."
    if (code >= 48 && code <= 57) {
      value = value * 10 + (code - 48);
      if (++digits > 3) return null;
    } else if (code === 46 && digits > 0 && value <= 255 && parts.length < 4) {
      parts.push(value);
      value = 0;
      digits = 0;
    } else return null;
  }
  return parts.length === 4 ? parts : null;
}

function parseIpv6(text: string): number[] | null {
  if (!/^[0-9a-fA-F:.]+$/.test(text) || !text.includes(":")) return null;
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const groups = (part: string, last: boolean): number[] | null => {
    if (part === "") return [];
    const out: number[] = [];
    const pieces = part.split(":");
    for (const [index, piece] of pieces.entries()) {
      if (last && index === pieces.length - 1 && piece.includes(".")) {
        const v4 = parseIpv4(piece);
        if (!v4) return null;
        out.push(((v4[0] ?? 0) << 8) | (v4[1] ?? 0), ((v4[2] ?? 0) << 8) | (v4[3] ?? 0));
        continue;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(piece)) return null;
      out.push(Number.parseInt(piece, 16));
    }
    return out;
  };
  const head = groups(halves[0] ?? "", halves.length === 1);
  const tail = halves.length === 2 ? groups(halves[1] ?? "", true) : [];
  if (!head || !tail) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const missing = 8 - head.length - tail.length;
  if (missing < 1) return null;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
}

/**
 * Parses an address as proxies and platforms write it: `203.0.113.7`, `2001:db8::1`, with a port
 * (`203.0.113.7:443`, `[2001:db8::1]:443`) or a zone (`fe80::1%eth0`). An IPv4-mapped IPv6
 * address (`::ffff:203.0.113.7`) is the IPv4 address. Anything else is `null`.
 */
export function parseIp(input: string): IpAddress | null {
  // The common case, a plain IPv4 address, without the regular expressions below.
  const plain = parseIpv4(input);
  if (plain) return { version: 4, parts: plain };
  let text = input.trim();
  if (text.length === 0 || text.length > 64) return null;
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(text);
  if (bracketed?.[1]) text = bracketed[1];
  else if (/^[\d.]+:\d{1,5}$/.test(text)) text = text.slice(0, text.lastIndexOf(":"));
  text = text.split("%")[0] ?? "";
  const v4 = parseIpv4(text);
  if (v4) return { version: 4, parts: v4 };
  const v6 = parseIpv6(text);
  if (!v6) return null;
  const mapped = v6.slice(0, 6).every((g, i) => g === (i === 5 ? 0xffff : 0));
  if (mapped) {
    const [hi = 0, lo = 0] = v6.slice(6);
    return { version: 4, parts: [hi >> 8, hi & 255, lo >> 8, lo & 255] };
  }
  return { version: 6, parts: v6 };
}

/** The address in its usual short form (`2001:db8::1`, lowercase, zeros compressed). */
export function formatIp(ip: IpAddress): string {
  if (ip.version === 4) return ip.parts.join(".");
  // The longest run of two or more zero groups becomes "::".
  let best = { start: -1, length: 0 };
  for (let i = 0; i < 8; ) {
    if (ip.parts[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && ip.parts[j] === 0) j++;
    if (j - i > best.length && j - i >= 2) best = { start: i, length: j - i };
    i = j;
  }
  const hex = ip.parts.map((g) => g.toString(16));
  if (best.start < 0) return hex.join(":");
  const head = hex.slice(0, best.start).join(":");
  const tail = hex.slice(best.start + best.length).join(":");
  return `${head}::${tail}`;
}

/** Whether the first `bits` bits of two addresses of one version agree. */
function samePrefix(a: IpAddress, b: IpAddress, bits: number): boolean {
  if (a.version !== b.version) return false;
  const width = a.version === 4 ? 8 : 16;
  for (let i = 0, left = bits; left > 0; i++, left -= width) {
    const take = Math.min(width, left);
    const mask = ((1 << take) - 1) << (width - take);
    if (((a.parts[i] ?? 0) & mask) !== ((b.parts[i] ?? 0) & mask)) return false;
  }
  return true;
}

/** `10.0.0.0/8`, `2001:db8::/32`, or one address (a /32 or /128). */
function parseCidr(text: string): CidrRange | null {
  const [address = "", prefix, extra] = text.trim().split("/");
  if (extra !== undefined) return null;
  const ip = parseIp(address);
  if (!ip || (address.includes(":") && ip.version === 4 && prefix !== undefined)) return null;
  const max = ip.version === 4 ? 32 : 128;
  if (prefix === undefined) return { ip, bits: max };
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > max) return null;
  return { ip, bits: Number(prefix) };
}

/**
 * Checks `trustedProxies` (or `AUTH_TRUSTED_PROXIES`: a number, or comma-separated CIDR ranges).
 * A value that is neither is a configuration error: silently ignoring it would read
 * `X-Forwarded-For` from the wrong hop, or not at all.
 */
export function resolveTrustedProxies(
  value: TrustedProxies | undefined,
  fromEnv: string | undefined,
): ProxyTrust | undefined {
  let setting: TrustedProxies | undefined = value;
  const source = value === undefined ? "AUTH_TRUSTED_PROXIES" : "trustedProxies";
  if (setting === undefined && fromEnv !== undefined && fromEnv.trim() !== "") {
    const text = fromEnv.trim();
    setting = /^\d+$/.test(text) ? Number(text) : text.split(",").map((part) => part.trim());
  }
  if (setting === undefined) return undefined;
  if (typeof setting === "number") {
    if (!Number.isInteger(setting) || setting < 0 || setting > 32) {
      throw new AuthError(`${source} must be a whole number of proxies (0 to 32) or CIDR ranges`);
    }
    return setting === 0 ? undefined : { hops: setting };
  }
  if (!Array.isArray(setting)) {
    throw new AuthError(`${source} must be a number of proxies or a list of CIDR ranges`);
  }
  const ranges: CidrRange[] = [];
  for (const entry of setting) {
    const range = typeof entry === "string" ? parseCidr(entry) : null;
    if (!range) {
      throw new AuthError(`${source} has an entry that is not a CIDR range (such as 10.0.0.0/8)`);
    }
    ranges.push(range);
  }
  return ranges.length > 0 ? { ranges } : undefined;
}

/**
 * The client's address from `X-Forwarded-For`, given who is trusted. With `hops: n` the n-th entry
 * from the right (the one the outermost of n proxies appended); with ranges the rightmost entry
 * that is not a trusted proxy. Entries to the left of that are the client's own say and never
 * read. `null` when the header is missing or the chosen entry is not an address.
 */
export function forwardedClient(header: string | null, trust: ProxyTrust): string | null {
  const ip = forwardedIp(header, trust);
  return ip ? formatIp(ip) : null;
}

function forwardedIp(header: string | null, trust: ProxyTrust): IpAddress | null {
  if (!header) return null;
  // One proxy and one entry: the header is the address (the common case, without arrays).
  if ("hops" in trust && trust.hops === 1 && !header.includes(",")) return parseIp(header.trim());
  const entries = header
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  if (entries.length === 0) return null;
  if ("hops" in trust) return parseIp(entries[Math.max(0, entries.length - trust.hops)] ?? "");
  for (let i = entries.length - 1; i >= 0; i--) {
    const ip = parseIp(entries[i] ?? "");
    if (!ip) return null;
    if (!trust.ranges.some((range) => samePrefix(ip, range.ip, range.bits)) || i === 0) return ip;
  }
  return null;
}

/**
 * The bucket an address is counted in: an IPv4 address itself, an IPv6 address's /64 (one
 * subscriber usually holds a whole /64, so counting single IPv6 addresses counts nothing).
 */
export function addressBucket(address: string): string | null {
  const ip = parseIp(address);
  return ip ? bucketOf(ip) : null;
}

/** The bucket of a parsed address (see {@link addressBucket}). */
export function bucketOf(ip: IpAddress): string {
  if (ip.version === 4) {
    const [a, b, c, d] = ip.parts;
    return `${a}.${b}.${c}.${d}`;
  }
  return `${formatIp({ version: 6, parts: [...ip.parts.slice(0, 4), 0, 0, 0, 0] })}/64`;
}

/**
 * What the address of a request is worked out from: a `Context`, described by the members read
 * (the configuration module imports this one, so it cannot name `Context`).
 */
interface Source {
  req: RequestInternal;
  config: {
    clientAddress: ClientAddressResolver | undefined;
    trustedProxies: ProxyTrust | undefined;
    logger: LoggerInstance;
  };
}

/** The request as handed to `Auth()`, for the `clientAddress` hook (a POST's `original` is a copy). */
const incoming = new WeakMap<RequestInternal, Request>();

/** A request's parsed address: known at once from headers, or later from the hook. */
type Known = IpAddress | null | Promise<IpAddress | null>;

/** Remembers the request `Auth()` was given, so the hook sees the very object the platform made. */
export function rememberIncoming(req: RequestInternal, request: Request): void {
  incoming.set(req, request);
}

async function fromHook(ctx: Source, hook: ClientAddressResolver): Promise<IpAddress | null> {
  let ip: IpAddress | null;
  try {
    const value = await hook(incoming.get(ctx.req) ?? ctx.req.original);
    ip = typeof value === "string" ? parseIp(value) : null;
  } catch (cause) {
    ctx.config.logger.error(new AuthError("The clientAddress hook threw", { cause }));
    return null;
  }
  // An integration's fallback that found no address is as good as no hook at all.
  if (!ip && (hook as { [clientAddressFallback]?: boolean })[clientAddressFallback]) {
    return unknownAddress(ctx);
  }
  return ip;
}

/** Configurations already told that their X-Forwarded-For is not trusted. */
const toldUntrusted = new WeakSet<Source["config"]>();

/**
 * No hook, no trusted proxies: the address is unknown. When the request came through a proxy
 * nevertheless (it carries X-Forwarded-For), says once per configuration that the per-client
 * limits are off and how to turn them on: an app behind a load balancer that forgot
 * `trustedProxies` would otherwise never learn it. The header's value is never logged.
 */
function unknownAddress(ctx: Source): null {
  if (!toldUntrusted.has(ctx.config) && ctx.req.headers.has("x-forwarded-for")) {
    toldUntrusted.add(ctx.config);
    ctx.config.logger.warn(
      "untrusted-forwarded-for",
      new AuthError(
        "A request came with X-Forwarded-For, which is not read without trustedProxies: the client address is unknown, so the per-client rate limits are off. Behind a proxy, set trustedProxies (or AUTH_TRUSTED_PROXIES) to the number of proxies in front of the app or to their ranges, or give the address through clientAddress",
      ),
    );
  }
  return null;
}

/**
 * The request's address, parsed, worked out once per request: synchronously from the headers
 * (no promise to wait for on the sign-in path), or through the hook.
 */
export function clientIp(ctx: Source): Known {
  // Kept on the request itself: a WeakMap costs more than the parse it would save.
  const cached = ctx.req.clientIp;
  if (cached !== undefined) return cached;
  const hook = ctx.config.clientAddress;
  const trust = ctx.config.trustedProxies;
  const known: Known = hook
    ? fromHook(ctx, hook)
    : trust
      ? forwardedIp(ctx.req.headers.get("x-forwarded-for"), trust)
      : unknownAddress(ctx);
  ctx.req.clientIp = known;
  return known;
}

/**
 * The client's address (normalised: `2001:db8::1`, `203.0.113.7`), or `null` when it cannot be
 * known.
 */
export async function clientAddress(ctx: Source): Promise<string | null> {
  const ip = await clientIp(ctx);
  return ip ? formatIp(ip) : null;
}
