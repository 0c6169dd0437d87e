/**
 * `gatehouse(config)`: an Express router that answers the auth routes under the prefix and lets
 * every other request through.
 */
import { createAuthRoute, normalizePrefix, underPrefix } from "@gatehousejs/core/integration";
import express, {
  type Request as ExpressRequest,
  type Response as ExpressResponse,
  type NextFunction,
  type Router,
} from "express";
import { type GatehouseConfig, rememberConfig } from "./config.js";
import { pathnameOf, toWebRequest, urlOf } from "./request.js";
import { sendResponse } from "./response.js";

/** What the kit's auth route reads from an Express request. */
interface AuthEvent {
  request: Request;
  clientAddress: string | undefined;
}

/**
 * An Express router with Gatehouse's routes under `config.prefix` (default `/api/auth`): the
 * sign-in page and form, the credentials and OAuth callbacks, the session, CSRF and sign-out
 * endpoints, and every other action of the protocol. Mount it at the root of the app, before the
 * routes that call `getSession(req)` or use `requireAuth()`: it also records, for every request
 * that passes, the configuration those helpers read.
 *
 * - The body is streamed to Gatehouse as it arrives (a body over 64 KiB is refused with `413`);
 *   when `express.json()` or `express.urlencoded()` already parsed it, it is rebuilt from
 *   `req.body`.
 * - The protocol and host of the links Gatehouse builds come from `req.protocol` and
 *   `req.hostname`, and the client address of the rate limits from `req.ip`: each follows the
 *   app's `trust proxy` setting, so `X-Forwarded-*` headers count only when the app trusts them.
 * - Every `Set-Cookie` is a header of its own; the response body is streamed; a client that goes
 *   away aborts the request's `signal`.
 *
 * A bad `prefix` throws a `TypeError` here. The core configuration is built on the first request
 * from `config` and the environment (`AUTH_SECRET`, `AUTH_URL`, `AUTH_TRUST_HOST`, …) and kept.
 *
 * @example
 * ```ts
 * import { gatehouse } from "@gatehousejs/express";
 * import Credentials from "@gatehousejs/core/providers/credentials";
 * import express from "express";
 *
 * const app = express();
 * app.use(gatehouse({ providers: [Credentials({ authorize: () => null })] }));
 * ```
 */
export function gatehouse(config: GatehouseConfig): Router {
  const prefix = normalizePrefix(config.prefix);
  const route = createAuthRoute<AuthEvent>(config, {
    clientAddress: (event) => event.clientAddress,
  });
  const router = express.Router();
  // No mount path: Express 4 and 5 would read one as a path pattern, each its own way (`(`, `+`,
  // `*`, `:` …). The prefix is compared as text, the same on both.
  router.use((req, res, next) => {
    rememberConfig(req, config);
    if (!underPrefix(pathnameOf(req), prefix)) {
      next();
      return;
    }
    answer(route, prefix, req, res, next).catch((error: unknown) => {
      // A client that went away mid-response: nothing left to answer.
      if (res.destroyed || res.writableEnded) return;
      if (!res.headersSent) next(error);
      else res.destroy();
    });
  });
  return router;
}

/** Answers one request under the prefix, or hands it on when Gatehouse does not own its path. */
async function answer(
  route: (event: AuthEvent) => Promise<Response | undefined>,
  prefix: string,
  req: ExpressRequest,
  res: ExpressResponse,
  next: NextFunction,
): Promise<void> {
  let url: URL;
  try {
    url = urlOf(req);
  } catch {
    // A Host header that makes no URL: the client's mistake.
    res.status(400).end();
    return;
  }
  // The path of the URL as built, checked again: Gatehouse's routes are exact. Decided before
  // the body is touched, so a route further on can still read it.
  if (!underPrefix(url.pathname, prefix)) {
    next();
    return;
  }
  const request = toWebRequest(req, res, url);
  const response = await route({ request, clientAddress: req.ip });
  if (!response) {
    next();
    return;
  }
  // Answered before the body has all arrived (refused for its size, say): the rest is not read,
  // and the connection closes once the answer is sent rather than wait for it.
  if (!req.complete && !res.headersSent) res.setHeader("Connection", "close");
  await sendResponse(response, res);
}
