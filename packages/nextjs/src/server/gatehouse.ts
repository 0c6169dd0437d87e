/// <reference path="../next-modules.d.ts" />
/**
 * `Gatehouse(config)`: what `auth.ts` exports, as next-auth v5's `NextAuth(config)` does:
 * the auth route's handlers, `auth`, `signIn`, `signOut` and `unstable_update`.
 */
import { Auth } from "@gatehousejs/core";
import {
  type AuthRouteHandler,
  createAuthRoute,
  type IntegrationConfig,
  readSession,
  resolveIntegrationConfig,
} from "@gatehousejs/core/integration";
import type { Session } from "@gatehousejs/core/types";
import { headers } from "next/headers";
import { NextResponse } from "next/server";
import {
  type AuthorizationParams,
  type ServerSignInOptions,
  type ServerSignOutOptions,
  serverSignIn,
  serverSignOut,
  serverUpdate,
} from "./actions.js";
import { configReader, type GatehouseConfigInput } from "./config.js";
import { type AuthHandler, guard, type RequestWithAuth } from "./guard.js";
import { sessionSource, setCookieHeaders } from "./next-request.js";
import { atPublicOrigin } from "./origin.js";

/** A handler of the auth route, for `app/api/auth/[...gatehouse]/route.ts`. */
export type RouteHandler = (request: Request) => Promise<Response>;

/** `auth`: the session everywhere on the server, the proxy, and a wrapper that adds `req.auth`. */
export interface AuthFunction {
  /**
   * The session of the request being served, or `null`: in a Server Component, a Server
   * Action or a Route Handler. Where Next.js lets cookies be set (Server Actions, Route
   * Handlers) a session due for renewal is re-issued; a Server Component only reads (the proxy
   * renews on navigation).
   */
  (): Promise<Session | null>;
  /**
   * The proxy (`proxy.ts`, Next.js 16) or middleware (`middleware.ts`, Next.js 15):
   * `export { auth as proxy }`.
   */
  (request: Request, ...rest: unknown[]): Promise<Response>;
  /**
   * A proxy, middleware or Route Handler that gets the verified session as `request.auth`.
   * Returning nothing lets the request through.
   */
  <R extends Request, Rest extends unknown[]>(
    handler: AuthHandler<R, Rest>,
  ): (request: R, ...rest: Rest) => Promise<Response>;
}

/** The server-side `signIn`, for Server Actions. */
export type SignInFunction = (
  provider?: string,
  options?: ServerSignInOptions,
  authorizationParams?: AuthorizationParams,
) => Promise<string>;

/** The server-side `signOut`, for Server Actions. */
export type SignOutFunction = (options?: ServerSignOutOptions) => Promise<string>;

/** What {@link Gatehouse} returns, to export from `auth.ts`. */
export interface GatehouseResult {
  /** `GET` and `POST` of the auth route: `export const { GET, POST } = handlers`. */
  handlers: { GET: RouteHandler; POST: RouteHandler };
  /** The session, the proxy, and the `req.auth` wrapper. */
  auth: AuthFunction;
  /**
   * Signs in from a Server Action: `await signIn("credentials", formData)` sets the session
   * cookie and redirects (with `redirect()` of `next/navigation`) to `redirectTo`; a refused
   * sign-in throws `CredentialsSignin`. `signIn("github")` redirects to the provider.
   */
  signIn: SignInFunction;
  /** Signs out from a Server Action, then redirects to `redirectTo` (default: the same page). */
  signOut: SignOutFunction;
  /** Updates the session from the server; the `jwt` callback sees `trigger: "update"`. */
  unstable_update: (data: Partial<Session> | Record<string, unknown>) => Promise<Session | null>;
}

const routes = new WeakMap<IntegrationConfig, AuthRouteHandler<{ request: Request }>>();

/** The kit's auth route for a configuration, built once. */
function routeOf(config: IntegrationConfig): AuthRouteHandler<{ request: Request }> {
  let route = routes.get(config);
  if (!route) {
    route = createAuthRoute(config);
    routes.set(config, route);
  }
  return route;
}

/**
 * Gatehouse for Next.js (App Router): one call in `auth.ts`, as next-auth v5's `NextAuth()`.
 * The configuration is core's `AuthConfig` (see `GatehouseConfig`), or a function of the request
 * returning it; `AUTH_SECRET`, `AUTH_URL`, `AUTH_TRUST_HOST` and each provider's
 * `AUTH_<ID>_ID` / `AUTH_<ID>_SECRET` fill what it leaves out, and the cookies and session
 * tokens are next-auth's, so switching signs nobody out.
 *
 * @example
 * ```ts
 * // auth.ts
 * import Gatehouse from "@gatehousejs/nextjs";
 * import GitHub from "@gatehousejs/core/providers/github";
 *
 * export const { handlers, auth, signIn, signOut } = Gatehouse({ providers: [GitHub] });
 * ```
 */
export function Gatehouse(config: GatehouseConfigInput): GatehouseResult {
  const read = configReader(config);

  const route: RouteHandler = async (request) => {
    const { integration } = await read(request);
    const { core } = resolveIntegrationConfig(integration);
    const seen = await atPublicOrigin(request, core);
    const answer = await routeOf(integration)({ request: seen });
    if (answer) return answer;
    // Outside the prefix: core answers 400 and names the basePath it expected.
    return Auth(seen, core);
  };

  async function session(): Promise<Session | null> {
    const own = read(undefined);
    const { integration } = own instanceof Promise ? await own : own;
    const source = sessionSource(await headers(), integration);
    let renewed: string[] = [];
    // Core's session check reads only the URL and the headers of its request.
    const value = await readSession(source, integration, (cookies) => {
      renewed = cookies;
    });
    if (renewed.length > 0) await setCookieHeaders(renewed);
    return value;
  }

  async function proxy(request: Request): Promise<Response> {
    return guard(request, await read(request), () => NextResponse.next(), undefined, []);
  }

  function auth(...args: unknown[]): unknown {
    const [first] = args;
    if (first === undefined) return session();
    if (typeof first === "function") {
      const handler = first as AuthHandler<Request, unknown[]>;
      return async (request: Request, ...rest: unknown[]) =>
        guard(request, await read(request), () => NextResponse.next(), handler, rest);
    }
    if (first instanceof Request || isRequestLike(first)) {
      const request = first as Request;
      return proxy(request);
    }
    throw new TypeError("auth() takes no argument, a request (as the proxy), or a handler to wrap");
  }

  return {
    handlers: { GET: route, POST: route },
    auth: auth as AuthFunction,
    signIn: async (provider, options, authorizationParams) =>
      serverSignIn((await read(undefined)).integration, provider, options, authorizationParams),
    signOut: async (options) => serverSignOut((await read(undefined)).integration, options),
    unstable_update: async (data) => serverUpdate((await read(undefined)).integration, data),
  };
}

/** A request from another realm (the edge runtime's) fails `instanceof`: its shape decides. */
function isRequestLike(value: unknown): value is Request {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as Request).url === "string" &&
    typeof (value as Request).headers?.get === "function"
  );
}

export type { RequestWithAuth };
