/**
 * `authHandler()`: the auth routes mounted under the prefix, with the socket address of the
 * runtime's connection-info helper handed to core for its rate limits.
 */
import { createAuthRoute } from "@gatehousejs/core/integration";
import type { Context, MiddlewareHandler } from "hono";
import type { GetConnInfo } from "hono/conninfo";
import { createMiddleware } from "hono/factory";
import type { HonoAuthConfig } from "./types.js";

/** Options of {@link authHandler} and `gatehouse()`. */
export interface AuthHandlerOptions {
  /**
   * The runtime's connection-info helper: `getConnInfo` from `@hono/node-server/conninfo` on
   * Node, `hono/bun`, `hono/deno`, `hono/cloudflare-workers` and so on elsewhere. Its
   * `remote.address` is the socket's peer, never a forwarded header. Core's rate limits count
   * per client with it when the configuration sets neither `clientAddress` nor
   * `trustedProxies` and the peer is a public address (outside production, a loopback one too).
   * Without it those limits know no client address.
   */
  getConnInfo?: GetConnInfo;
}

/** The event the kit's auth route reads: the request, and the context it came with. */
interface HonoEvent {
  request: Request;
  context: Context;
}

/** The peer address, or `undefined` when the helper does not fit this runtime. */
function peerOf(getConnInfo: GetConnInfo, c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    // A helper of another runtime throws on this context (the Node one reads `c.env.incoming`):
    // no address is better than a failed sign-in.
    return undefined;
  }
}

/**
 * A middleware that answers every request under the configuration's `prefix` (default
 * `/api/auth`) with Gatehouse: sign-in, callbacks, the session, CSRF, sign-out and every other
 * action of the protocol; an unknown action is refused with `400 UnknownAction`. Requests
 * outside the prefix go on to the app's next handler. Mount it on every path (`app.use(...)`):
 * it matches the full request path against the prefix itself.
 *
 * Register it before any middleware that reads the request body: core reads the form itself.
 *
 * A bad `prefix` throws a `TypeError` here, where the middleware is built.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { getConnInfo } from "@hono/node-server/conninfo";
 * import { authHandler, type HonoAuthConfig } from "@gatehousejs/hono";
 *
 * declare const authConfig: HonoAuthConfig;
 * const app = new Hono();
 * app.use(authHandler(authConfig, { getConnInfo }));
 * ```
 */
export function authHandler(
  config: HonoAuthConfig,
  options: AuthHandlerOptions = {},
): MiddlewareHandler {
  const { getConnInfo } = options;
  const route = createAuthRoute<HonoEvent>(
    config,
    getConnInfo ? { clientAddress: (event) => peerOf(getConnInfo, event.context) } : {},
  );
  return createMiddleware(async (c, next) => {
    const response = await route({ request: c.req.raw, context: c });
    if (response) return response;
    await next();
  });
}
