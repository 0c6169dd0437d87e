/**
 * The configuration of `Gatehouse()`: next-auth v5's shape (core's `AuthConfig` with `basePath`
 * default `/api/auth` and the `authorized` callback), plus protected paths, turned into the
 * integration kit's configuration once per object.
 */

import type { IntegrationConfig, SignedOutRedirect } from "@gatehousejs/core/integration";
import type { AuthConfig, CallbacksOptions, Session } from "@gatehousejs/core/types";

/** What the `authorized` callback is given: the request the proxy checks, and its session. */
export interface AuthorizedParams {
  /** The request (a `NextRequest` in the proxy or middleware). */
  request: Request;
  /** The session of the request, verified, or `null`. */
  auth: Session | null;
}

/**
 * The `authorized` callback of next-auth v5, asked by the proxy (or middleware) for every
 * request it checks: `true` lets it through, a `Response` (a redirect, a `401`) is answered as it
 * is, and anything else (`false`, nothing) sends the visitor to the sign-in page with
 * `callbackUrl`.
 */
export type AuthorizedCallback = (
  params: AuthorizedParams,
) => boolean | Response | undefined | Promise<boolean | Response | undefined>;

/** Where the proxy sends visitors of protected paths, and which paths those are. */
export interface ProtectOptions extends SignedOutRedirect {
  /**
   * The protected paths: `"/account"` is that page only, `"/admin/*"` is `/admin` and every
   * path under it (matched as `createAuthMiddleware` matches them). A signed-out visitor of one
   * is redirected before any page renders.
   */
  paths: string[];
}

/**
 * The configuration of {@link Gatehouse}: core's `AuthConfig` as next-auth v5 takes it.
 *
 * - `basePath`: where the auth route is mounted. Default: the path of `AUTH_URL` (or
 *   `NEXTAUTH_URL`) when it has one, else `/api/auth` (the route file
 *   `app/api/auth/[...gatehouse]/route.ts`).
 * - `callbacks.authorized`: asked by the proxy, as in next-auth.
 * - `protect`: protected paths that need no callback (by default signed-out visitors go to the
 *   sign-in page with `callbackUrl`).
 */
export type GatehouseConfig = Omit<AuthConfig, "raw" | "basePath" | "callbacks"> & {
  /** The auth route's mount path, with no trailing slash. Default `/api/auth`. */
  basePath?: string;
  /** Core's callbacks, and next-auth's `authorized` for the proxy. */
  callbacks?: CallbacksOptions & { authorized?: AuthorizedCallback };
  /**
   * Paths the proxy protects with a verified session, or a list of them (`["/account",
   * "/admin/*"]`, sending signed-out visitors to the sign-in page).
   */
  protect?: string[] | ProtectOptions;
};

/**
 * `Gatehouse()`'s argument: a configuration, or a function of the request that returns one
 * (next-auth's lazy initialisation; the request is `undefined` in a Server Component, a Server
 * Action or a Route Handler's `auth()`). Return the same object for the same settings: each new
 * object is resolved again.
 */
export type GatehouseConfigInput =
  | GatehouseConfig
  | ((request: Request | undefined) => GatehouseConfig | Promise<GatehouseConfig>);

/** A configuration as the helpers use it. */
export interface NextConfig {
  /** The kit's configuration (core's, with `prefix`). */
  integration: IntegrationConfig;
  /** The `authorized` callback, if any. */
  authorized: AuthorizedCallback | undefined;
  /** The protected paths and their redirect, if any. */
  protect: ProtectOptions | undefined;
}

type Env = Record<string, string | undefined>;

function processEnv(): Env {
  const env = (globalThis as { process?: { env?: Env } }).process?.env;
  return env && typeof env === "object" ? env : {};
}

/** The mount path next-auth v5 would use: `basePath`, else `AUTH_URL`'s path, else `/api/auth`. */
function prefixOf(basePath: string | undefined, env: Env): string {
  if (basePath) return basePath;
  const url = env.AUTH_URL ?? env.NEXTAUTH_URL;
  if (url && URL.canParse(url)) {
    const { pathname } = new URL(url);
    if (pathname !== "/") return pathname;
  }
  return "/api/auth";
}

const built = new WeakMap<GatehouseConfig, NextConfig>();

/**
 * The helpers' view of a configuration, built once per object: `basePath` becomes the kit's
 * `prefix`, next-auth's fallbacks `NEXTAUTH_SECRET` and `NEXTAUTH_URL` apply where `AUTH_SECRET`
 * and `AUTH_URL` are not set, and the Next-only keys (`authorized`, `protect`) stay here. The
 * kit then applies the rest of the environment (`AUTH_TRUST_HOST`, `AUTH_<ID>_ID`, …).
 */
export function nextConfig(config: GatehouseConfig): NextConfig {
  const known = built.get(config);
  if (known) return known;
  const env = processEnv();
  const { basePath, protect, callbacks, ...rest } = config;
  const { authorized, ...coreCallbacks } = callbacks ?? {};
  const integration: IntegrationConfig = {
    ...rest,
    prefix: prefixOf(basePath, env),
    ...(callbacks ? { callbacks: coreCallbacks } : {}),
  };
  const noSecret =
    !integration.secret || (Array.isArray(integration.secret) && integration.secret.length === 0);
  if (noSecret && !env.AUTH_SECRET && env.NEXTAUTH_SECRET) integration.secret = env.NEXTAUTH_SECRET;
  if (integration.url === undefined && !env.AUTH_URL && env.NEXTAUTH_URL) {
    integration.url = env.NEXTAUTH_URL;
  }
  const resolved: NextConfig = { integration, authorized, protect: protectOptions(protect) };
  built.set(config, resolved);
  return resolved;
}

/** `protect` as options: a list, or options whose default is the sign-in page. */
function protectOptions(protect: GatehouseConfig["protect"]): ProtectOptions | undefined {
  if (protect === undefined) return undefined;
  if (Array.isArray(protect)) return { paths: protect, signIn: true };
  if (!protect || !Array.isArray(protect.paths)) {
    throw new TypeError('Gatehouse: "protect" must be a list of paths such as "/admin/*"');
  }
  return { ...protect, signIn: protect.signIn ?? protect.redirectTo === undefined };
}

/**
 * A function that reads the configuration for a request: at once for a configuration object,
 * through a promise for a function of the request (lazy initialisation).
 */
export type ConfigReader = (request: Request | undefined) => NextConfig | Promise<NextConfig>;

/** The reader of `Gatehouse()`'s argument. */
export function configReader(input: GatehouseConfigInput): ConfigReader {
  if (typeof input === "function") return async (request) => nextConfig(await input(request));
  return () => nextConfig(input);
}
