/**
 * The auth route of a framework integration: every request under the prefix goes to `Auth()`,
 * with the socket's peer address the framework knows handed over for the rate limits.
 */
import { Auth } from "../index.js";
import { rememberPeer } from "./client-address.js";
import {
  type IntegrationConfig,
  normalizePrefix,
  resolveIntegrationConfig,
  underPrefix,
} from "./config.js";

/** How an integration reads what the auth route needs from its framework's event. */
export interface AuthRouteOptions<Event> {
  /**
   * The client's address as the framework reads it (SolidStart's `event.clientAddress`, h3's
   * `getRequestIP(event)`, Hono's `getConnInfo`): the socket's peer, or what the framework's own
   * proxy-trust setting derives from forwarded headers (Express's `req.ip` under `trust proxy`),
   * never a forwarded header read unchecked; `undefined` when it has none. Core's rate limits use it when the configuration sets neither
   * `clientAddress` nor `trustedProxies` and the address is public (outside production, a
   * loopback one too); `peerAddressOf(request)` returns it whatever it is.
   */
  clientAddress?: (event: Event) => string | null | undefined;
}

/** The auth route's handler: a `Response`, or `undefined` for a path outside the prefix. */
export type AuthRouteHandler<Event> = (event: Event) => Promise<Response | undefined>;

/**
 * The handler of a catch-all auth route. A request whose path is the prefix or under it goes to
 * core's `Auth()`, which answers every action of the protocol and refuses an unknown one with
 * `400 UnknownAction`; a request outside the prefix resolves to `undefined`, so the framework
 * goes on to its other routes.
 *
 * A bad `prefix` throws a `TypeError` here, where the route is declared. The core
 * configuration is built on the first request (see `resolveIntegrationConfig`) and kept.
 *
 * @example
 * ```ts
 * import { createAuthRoute, type IntegrationConfig } from "@gatehousejs/core/integration";
 *
 * declare const config: IntegrationConfig;
 * interface FrameworkEvent {
 *   request: Request;
 *   socketAddress?: string;
 * }
 *
 * export const handle = createAuthRoute<FrameworkEvent>(config, {
 *   clientAddress: (event) => event.socketAddress,
 * });
 * ```
 */
export function createAuthRoute<Event extends { request: Request }>(
  config: IntegrationConfig,
  options: AuthRouteOptions<Event> = {},
): AuthRouteHandler<Event> {
  normalizePrefix(config.prefix);
  const { clientAddress } = options;
  return async (event) => {
    const { core, prefix } = resolveIntegrationConfig(config);
    const { request } = event;
    let pathname: string;
    try {
      pathname = new URL(request.url).pathname;
    } catch {
      return undefined;
    }
    if (!underPrefix(pathname, prefix)) return undefined;
    if (clientAddress) rememberPeer(request, clientAddress(event));
    return Auth(request, core);
  };
}
