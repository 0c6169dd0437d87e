/**
 * The client's address: how Gatehouse learns it (trusted proxies, the app's hook) and its parsed
 * form. Types only; the rate limits (features/rate-limit) and session records use it.
 */

/** A client's address, parsed: four bytes, or eight 16-bit groups. */
export type ClientIp = { version: 4; parts: number[] } | { version: 6; parts: number[] };

/**
 * Who sits in front of the app: the number of proxies that append to `X-Forwarded-For`
 * (`1`: one load balancer), or the CIDR ranges of trusted proxies (`["10.0.0.0/8"]`). The client
 * address is then the rightmost `X-Forwarded-For` entry that is not a trusted proxy. Unset (the
 * default): `X-Forwarded-For` is never read.
 */
export type TrustedProxies = number | string[];

/**
 * Tells Gatehouse the client's address on platforms that give it another way (a socket, a
 * platform header). Return `null` or `undefined` when it is unknown.
 */
export type ClientAddressResolver = (
  request: Request,
) => string | null | undefined | Promise<string | null | undefined>;
