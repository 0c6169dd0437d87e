/**
 * `auth` as the proxy (Next.js 16, `proxy.ts`) or middleware (Next.js 15, `middleware.ts`), and
 * `auth(handler)` around a proxy or a Route Handler: the session verified (JWE decrypted, the
 * revocation store or the database asked), the protected paths and the `authorized` callback
 * applied, and a session due for renewal re-issued on the response.
 */
import {
  type AuthMiddlewareHandler,
  createAuthMiddleware,
  type IntegrationConfig,
  readSession,
  resolveIntegrationConfig,
  signInRedirect,
  underPrefix,
} from "@gatehousejs/core/integration";
import type { Session } from "@gatehousejs/core/types";
import type { NextConfig, ProtectOptions } from "./config.js";
import { publicOrigin } from "./origin.js";

/** A request as the proxy sees it, with the session `auth(handler)` puts on it. */
export type RequestWithAuth<R extends Request = Request> = R & {
  /** The verified session of the request, or `null`. */
  auth: Session | null;
};

/** What `auth(handler)` wraps: a proxy, a middleware or a Route Handler. */
export type AuthHandler<R extends Request, Rest extends unknown[]> = (
  request: RequestWithAuth<R>,
  ...rest: Rest
) => Response | undefined | void | Promise<Response | undefined | void>;

/** Where Next.js serves its build output and internal endpoints, never pages. */
const NEXT_ASSET_ROOTS = ["/_next"];

const guards = new WeakMap<IntegrationConfig, AuthMiddlewareHandler>();

/** The kit's protection middleware for `protect`, asked only whether a path is protected. */
function protection(
  integration: IntegrationConfig,
  protect: ProtectOptions,
): AuthMiddlewareHandler {
  let guard = guards.get(integration);
  if (!guard) {
    const { paths, ...redirect } = protect;
    guard = createAuthMiddleware(
      integration,
      { ...redirect, protectedPaths: paths },
      { name: "Gatehouse protect", assetRoots: NEXT_ASSET_ROOTS },
    );
    guards.set(integration, guard);
  }
  return guard;
}

/**
 * The redirect for a signed-out visitor of `request` when its path is protected, else
 * `undefined`. The kit decides (its path rules: both spellings of a path, assets and the auth
 * route never protected) by answering a copy of the request that carries no cookie: without a
 * session, a protected path is answered with its redirect.
 */
async function protectedAnswer(
  request: Request,
  integration: IntegrationConfig,
  protect: ProtectOptions,
): Promise<Response | undefined> {
  return protection(integration, protect)({ request: new Request(request.url) });
}

/**
 * A redirect of the kit with its location made absolute against the request: Next.js parses the
 * `Location` of a proxy's answer as a URL.
 */
function absolute(response: Response, base: string): Response {
  const location = response.headers.get("Location");
  if (location === null) return response;
  const headers = new Headers(response.headers);
  headers.set("Location", new URL(location, base).href);
  return new Response(null, { status: response.status, headers });
}

/** A `302` to the auth route's error page, for a configuration that cannot check sessions. */
function configurationError(base: string, prefix: string): Response {
  const location = new URL(`${prefix}/error?error=Configuration`, base);
  return new Response(null, { status: 302, headers: { Location: location.href } });
}

/** `response` with `cookies` appended, copied first when its headers cannot change. */
function withCookies(response: Response, cookies: readonly string[]): Response {
  if (cookies.length === 0) return response;
  let out = response;
  try {
    for (const cookie of cookies) out.headers.append("Set-Cookie", cookie);
  } catch {
    out = new Response(response.body, response);
    for (const cookie of cookies) out.headers.append("Set-Cookie", cookie);
  }
  return out;
}

/** `NextResponse.next()`: let the request through to its page. */
type PassOn = () => Response;

/**
 * Whether the browser only prefetches this page (Next.js's router, or a `<link rel=prefetch>`):
 * nobody is visiting it yet.
 */
function isPrefetch(headers: Headers): boolean {
  if (headers.has("next-router-prefetch")) return true;
  const purpose = `${headers.get("sec-purpose") ?? ""} ${headers.get("purpose") ?? ""}`;
  return purpose.includes("prefetch");
}

/**
 * The answer to a signed-out visitor the proxy sends to sign in: the redirect, except to a
 * prefetch, which gets an empty `204`. Following the redirect would load the sign-in page, whose
 * GET records its `callbackUrl` in a cookie: a link to a protected page, prefetched while the
 * user signs in elsewhere on the site, would then decide where that sign-in lands. A real visit
 * (the click) still gets the redirect.
 */
function toSignIn(request: Request, redirect: Response, cookies: readonly string[]): Response {
  if (!isPrefetch(request.headers)) return withCookies(redirect, cookies);
  return withCookies(
    new Response(null, { status: 204, headers: { "cache-control": "no-store" } }),
    cookies,
  );
}

/** The path of the sign-in page the app configured (`pages.signIn`), if any. */
function signInPagePath(integration: IntegrationConfig): string | undefined {
  const page = integration.pages?.signIn;
  if (!page) return undefined;
  try {
    return new URL(page, "http://localhost").pathname;
  } catch {
    return undefined;
  }
}

/**
 * One request through the proxy (or a wrapped Route Handler).
 *
 * - Under the auth route's prefix and under `/_next`, the session is not read (and never
 *   renewed: the auth route sets its own cookies) unless a handler is wrapped.
 * - A configuration that cannot check sessions fails closed: with `protect` or `authorized` set,
 *   every path the proxy checks goes to the error page (`?error=Configuration`); otherwise a
 *   wrapped handler sees `auth: null`.
 * - A signed-out visitor of a protected path is redirected (the sign-in page with
 *   `callbackUrl` by default); then `authorized`, if set, decides: `true` lets the request on,
 *   a `Response` is answered, anything else (`false`, nothing) is the sign-in page. A prefetch
 *   is answered `204` instead of either redirect (see {@link toSignIn}).
 * - A session due for renewal (`updateAge`) is re-issued on whatever the response is.
 */
export async function guard<R extends Request, Rest extends unknown[]>(
  request: R,
  config: NextConfig,
  passOn: PassOn,
  handler: AuthHandler<R, Rest> | undefined,
  rest: Rest,
): Promise<Response> {
  const { integration, authorized, protect } = config;
  const { prefix, core } = resolveIntegrationConfig(integration);
  const asked = new URL(request.url);
  let base: string;
  try {
    base = publicOrigin(request, core);
  } catch {
    // A public URL that cannot be read (a malformed AUTH_URL): the configuration is broken.
    if (authorized || protect) return configurationError(asked.origin, prefix);
    base = asked.origin;
  }
  const path = asked.pathname;
  // The request as the browser made it, for core's session check (host rules, cookie names).
  const seen = new Request(new URL(`${path}${asked.search}`, base), { headers: request.headers });
  const internal = underPrefix(path, prefix) || path === "/_next" || path.startsWith("/_next/");
  if (internal && !handler) return passOn();

  let session: Session | null = null;
  let renewed: string[] = [];
  let broken = false;
  try {
    session = await readSession(seen, integration, (cookies) => {
      renewed = cookies;
    });
  } catch {
    // Core has logged why; no session can be verified, so none is assumed.
    broken = true;
  }
  const cookies = internal ? [] : renewed;

  // Without a verified answer nothing the app guards may render: every path the proxy checks
  // goes to the error page (which path is protected cannot even be told without the config).
  if (broken && !internal && (authorized || protect)) return configurationError(base, prefix);
  if (!session?.user && protect && !internal) {
    const denied = await protectedAnswer(seen, integration, protect);
    if (denied) return toSignIn(request, absolute(denied, base), cookies);
  }
  if (authorized && !internal) {
    const verdict = await authorized({ request, auth: session });
    if (verdict instanceof Response) return withCookies(verdict, cookies);
    // As in next-auth, a callback that answers nothing refuses: the proxy fails closed.
    if (!verdict && path !== signInPagePath(integration)) {
      return toSignIn(request, absolute(signInRedirect(seen, integration), base), cookies);
    }
  }
  let response: Response | undefined | void;
  if (handler) {
    const augmented = request as RequestWithAuth<R>;
    augmented.auth = session;
    response = await handler(augmented, ...rest);
  }
  return withCookies(response ?? passOn(), cookies);
}
