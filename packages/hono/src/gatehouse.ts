/**
 * `gatehouse()`: the auth routes and the session on the context, in one middleware.
 */
import type { MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import { type AuthHandlerOptions, authHandler } from "./handler.js";
import { authSession } from "./session.js";
import type { AuthEnv, HonoAuthConfig } from "./types.js";

/**
 * Gatehouse for a Hono app, in one middleware: {@link authHandler} answers the auth routes under
 * the prefix (default `/api/auth`), and {@link authSession} puts the session of every other
 * request on the context (`c.get("session")`, `c.get("user")`) and forwards a renewed session
 * cookie to the response. Add `requireAuth()` to the routes only signed-in visitors may reach.
 *
 * Build `config` once, at module level: its core configuration is built on the first request,
 * from it and the environment (`AUTH_SECRET`, `AUTH_URL`, `AUTH_TRUST_HOST`,
 * `AUTH_TRUSTED_PROXIES`, provider credentials), and kept.
 *
 * @example
 * ```ts
 * import { serve } from "@hono/node-server";
 * import { getConnInfo } from "@hono/node-server/conninfo";
 * import { Hono } from "hono";
 * import { type AuthEnv, gatehouse, type HonoAuthConfig, requireAuth } from "@gatehousejs/hono";
 * import Credentials from "@gatehousejs/core/providers/credentials";
 *
 * const authConfig: HonoAuthConfig = {
 *   providers: [Credentials({ authorize: () => null })],
 * };
 *
 * const app = new Hono<AuthEnv>();
 * app.use(gatehouse(authConfig, { getConnInfo }));
 * app.get("/api/me", requireAuth(), (c) => c.json(c.get("user")));
 * serve({ fetch: app.fetch, port: 3000 });
 * ```
 */
export function gatehouse(
  config: HonoAuthConfig,
  options: AuthHandlerOptions = {},
): MiddlewareHandler<AuthEnv> {
  const routes = authHandler(config, options);
  const session = authSession(config);
  return createMiddleware<AuthEnv>(async (c, next) => {
    // The session middleware answers nothing itself: it only wraps what follows.
    const answer = await routes(c, async () => {
      await session(c, next);
    });
    if (answer) return answer;
  });
}
