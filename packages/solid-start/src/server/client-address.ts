/**
 * The client's address for core's rate limits, from the SolidStart event: `event.clientAddress`,
 * which SolidStart reads from the socket (h3's `getRequestIP`, without `X-Forwarded-For`). Used
 * only when the app configured neither `clientAddress` nor `trustedProxies`
 * (`AUTH_TRUSTED_PROXIES`), and only when the peer is a public address: a private or loopback
 * peer is most likely a proxy or load balancer, and counting every client behind it as one would
 * let anyone lock everyone out. Behind a proxy, set `trustedProxies`.
 */
import { clientAddressFallback } from "@gatehousejs/core";
import type { ClientAddressResolver } from "@gatehousejs/core/types";

const peers = new WeakMap<Request, string>();

/** Remembers the socket address SolidStart gave for this request. */
export function rememberPeer(request: Request, address: unknown): void {
  if (typeof address === "string" && address !== "") peers.set(request, address);
}

const ipv4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/**
 * Whether an address can be a client on the internet: not loopback, private (RFC 1918, IPv6 ULA),
 * link-local, CGNAT shared space or unspecified. Anything that is not plainly an address is not.
 */
export function isPublicAddress(address: string): boolean {
  const text = address.replace(/^::ffff:/i, "");
  const v4 = ipv4.exec(text);
  if (v4) {
    const [a = 0, b = 0] = v4.slice(1, 3).map(Number);
    if (v4.slice(1).some((part) => Number(part) > 255)) return false;
    return !(
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 100 && b >= 64 && b < 128) ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b < 32) ||
      (a === 192 && b === 168)
    );
  }
  if (!/^[0-9a-f:]+$/i.test(text) || !text.includes(":")) return false;
  const lower = text.toLowerCase();
  if (lower === "::" || lower === "::1") return false;
  const first = Number.parseInt(lower.split(":")[0] || "0", 16);
  // fc00::/7 (unique local) and fe80::/10 (link-local).
  return (first & 0xfe00) !== 0xfc00 && (first & 0xffc0) !== 0xfe80;
}

/**
 * The hook installed when the app set none: the event's public socket address, else unknown.
 * Marked as a fallback, so that core warns once when a request that came through a proxy finds
 * no address here (the app behind it should set `trustedProxies`).
 */
export const peerAddress: ClientAddressResolver & { [clientAddressFallback]: true } = Object.assign(
  (request: Request) => {
    const address = peers.get(request);
    return address && isPublicAddress(address) ? address : null;
  },
  { [clientAddressFallback]: true as const },
);
