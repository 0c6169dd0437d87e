/**
 * What a session records about its client: a short description from the User-Agent, and the
 * address truncated to its network (IPv4 /24, IPv6 /48). Pure functions over strings, and the
 * one that applies them to a request.
 */
import { clientAddress } from "../client-address.js";
import type { Context } from "../context.js";

const MAX_DESCRIPTION = 64;

/** Browsers, most specific first (Edge and Opera also say "Chrome"; Chrome also says "Safari"). */
const browsers: ReadonlyArray<[name: string, pattern: RegExp]> = [
  ["Edge", /\bEdg(?:e|A|iOS)?\/(\d+)/],
  ["Opera", /\b(?:OPR|OPiOS)\/(\d+)/],
  ["Samsung Internet", /\bSamsungBrowser\/(\d+)/],
  ["Vivaldi", /\bVivaldi\/(\d+)/],
  ["Firefox", /\b(?:Firefox|FxiOS)\/(\d+)/],
  ["Chrome", /\b(?:Chrome|CriOS|HeadlessChrome)\/(\d+)/],
  ["Safari", /\bVersion\/(\d+)(?:[.\d]*)?(?: Mobile\/\S+)? Safari\//],
  ["curl", /^curl\/(\d+)/],
];

/** Operating systems, most specific first (Android also says "Linux"; iOS says "like Mac OS X"). */
const systems: ReadonlyArray<[name: string, pattern: RegExp]> = [
  ["iPadOS", /\biPad\b/],
  ["iOS", /\b(?:iPhone|iPod)\b/],
  ["Android", /\bAndroid\b/],
  ["ChromeOS", /\bCrOS\b/],
  ["Windows", /\bWindows\b/],
  ["macOS", /\bMac OS X\b|\bMacintosh\b/],
  ["Linux", /\bLinux\b|\bX11\b/],
];

/**
 * A short description of a client from its User-Agent: `Chrome 131 on macOS`, `Safari 18 on
 * iOS`, `Firefox 133 on Windows`. Only the major version; at most 64 characters; `null` for an
 * empty or missing header. An unknown browser is described by its OS alone, or `Unknown client`.
 */
export function describeClient(userAgent: string | null | undefined): string | null {
  if (!userAgent) return null;
  const ua = userAgent.slice(0, 512);
  let browser: string | undefined;
  for (const [name, pattern] of browsers) {
    const match = pattern.exec(ua);
    if (match) {
      browser = `${name} ${match[1]}`;
      break;
    }
  }
  const system = systems.find(([, pattern]) => pattern.test(ua))?.[0];
  const text =
    browser && system ? `${browser} on ${system}` : (browser ?? system ?? "Unknown client");
  return text.slice(0, MAX_DESCRIPTION);
}

const ipv4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/**
 * The address truncated to its network: IPv4 to its /24 (`203.0.113.7` → `203.0.113.0`), IPv6 to
 * its /48 (`2001:db8:85a3:8d3::1` → `2001:db8:85a3::`). An IPv4-mapped IPv6 address is treated as
 * IPv4. Anything that is not an address gives `null`.
 */
export function truncateIp(ip: string | null | undefined): string | null {
  if (!ip) return null;
  let text = ip.trim();
  // "[2001:db8::1]:443" and "203.0.113.7:443" as some proxies send them.
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text);
  if (bracketed?.[1]) text = bracketed[1];
  else if (/^[\d.]+:\d+$/.test(text)) text = text.slice(0, text.lastIndexOf(":"));
  const mapped = /^::ffff:([\d.]+)$/i.exec(text);
  if (mapped?.[1]) text = mapped[1];

  const v4 = ipv4.exec(text);
  if (v4) {
    const parts = v4.slice(1, 4).map(Number);
    if (parts.some((part) => part > 255) || Number(v4[4]) > 255) return null;
    return `${parts.join(".")}.0`;
  }
  const groups = expandIpv6(text);
  if (!groups) return null;
  const network = groups.slice(0, 3).map((group) => group.toString(16));
  // Drop trailing zero groups so the result reads as a prefix: "2001:db8::" not "2001:db8:0::".
  while (network.length > 0 && network[network.length - 1] === "0") network.pop();
  return `${network.join(":")}::`;
}

/** The eight 16-bit groups of an IPv6 address (without a zone), or null. */
function expandIpv6(text: string): number[] | null {
  const address = text.split("%")[0] ?? "";
  if (!/^[0-9a-fA-F:.]+$/.test(address) || !address.includes(":")) return null;
  const halves = address.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string): number[] | null => {
    if (part === "") return [];
    const out: number[] = [];
    const pieces = part.split(":");
    for (const [index, piece] of pieces.entries()) {
      if (index === pieces.length - 1 && piece.includes(".")) {
        const v4 = ipv4.exec(piece);
        if (!v4) return null;
        const bytes = v4.slice(1).map(Number);
        if (bytes.some((byte) => byte > 255)) return null;
        out.push(
          ((bytes[0] ?? 0) << 8) | (bytes[1] ?? 0),
          ((bytes[2] ?? 0) << 8) | (bytes[3] ?? 0),
        );
        continue;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(piece)) return null;
      out.push(Number.parseInt(piece, 16));
    }
    return out;
  };
  const head = parse(halves[0] ?? "");
  const tail = halves.length === 2 ? parse(halves[1] ?? "") : [];
  if (!head || !tail) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const missing = 8 - head.length - tail.length;
  if (missing < 1) return null;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
}

/**
 * The client's address as Gatehouse can know it: the `clientAddress` hook's answer, else the
 * `X-Forwarded-For` entry the trusted proxies vouch for (only with `trustedProxies`), else unknown
 * (`null`). `X-Forwarded-For` alone, which anyone can send, is never believed.
 */
export function clientIp(ctx: Context): Promise<string | null> {
  return clientAddress(ctx);
}

/** The client description and (with `session.recordIp`) the truncated address of the request. */
export async function requestClient(
  ctx: Context,
): Promise<{ client: string | null; ip: string | null }> {
  const ip = ctx.config.session.recordIp ? await clientIp(ctx) : null;
  return {
    client: describeClient(ctx.req.headers.get("user-agent")),
    ip: ip ? truncateIp(ip) : null,
  };
}
