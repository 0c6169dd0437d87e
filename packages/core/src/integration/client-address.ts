/**
 * The client's address for core's rate limits, from the framework: the socket's peer address,
 * which the integration reads from its event (SolidStart's `event.clientAddress`, h3's
 * `getRequestIP` without `X-Forwarded-For`) and hands to the auth route (`createAuthRoute`'s
 * `clientAddress`). Used only when the app configured neither `clientAddress` nor
 * `trustedProxies` (`AUTH_TRUSTED_PROXIES`), and only when the peer is a public address: a
 * private or loopback peer is most likely a proxy or load balancer, and counting every client
 * behind it as one would let anyone lock everyone out. Behind a proxy, set `trustedProxies`.
 *
 * Outside production a loopback peer counts too: on a developer's machine the browser talking to
 * `localhost` is the person at the keyboard, and the limits should show there as they will for
 * real clients. A production build (Nitro and Vite replace `process.env.NODE_ENV` when they
 * build) never does, whatever the environment says at run time.
 */
import { clientAddressFallback } from "../index.js";
import type { ClientAddressResolver } from "../types.js";
import { isProduction } from "./mode.js";

/**
 * The peer address of each request on its way to `Auth()`. Core calls the `clientAddress` hook
 * with the very `Request` it was handed, and has no per-request option: the request is the key.
 */
const peers = new WeakMap<Request, string>();

/** Remembers the socket address the framework gave for this request. */
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

/** Whether an address is a loopback address (127.0.0.0/8, `::1`, or IPv4 loopback as IPv6). */
export function isLoopbackAddress(address: string): boolean {
  const text = address.replace(/^::ffff:/i, "").toLowerCase();
  const v4 = ipv4.exec(text);
  if (v4) return v4[1] === "127" && v4.slice(2).every((part) => Number(part) <= 255);
  return text === "::1" || text === "0:0:0:0:0:0:0:1";
}

/**
 * The socket address the framework gave for a request to the auth route, whatever it is
 * (loopback and private addresses included), or `null` when none was given. For an app's own
 * `clientAddress` hook when it knows nothing stands between the browser and the server, such as
 * a demo run on the developer's machine from a production build.
 *
 * @example
 * ```ts
 * import type { AuthConfig } from "@gatehousejs/core";
 * import { peerAddressOf } from "@gatehousejs/core/integration";
 *
 * // No proxy in front of this server: the socket's peer is the client.
 * export const authConfig: AuthConfig = { providers: [], clientAddress: peerAddressOf };
 * ```
 */
export function peerAddressOf(request: Request): string | null {
  return peers.get(request) ?? null;
}

/**
 * The hook installed when the app set none: the event's public socket address (or, outside
 * production, its loopback address), else unknown.
 * Marked as a fallback, so that core warns once when a request that came through a proxy finds
 * no address here (the app behind it should set `trustedProxies`).
 */
export const peerAddress: ClientAddressResolver & { [clientAddressFallback]: true } = Object.assign(
  (request: Request) => {
    const address = peers.get(request);
    if (!address) return null;
    if (isPublicAddress(address)) return address;
    return !isProduction() && isLoopbackAddress(address) ? address : null;
  },
  { [clientAddressFallback]: true as const },
);
