/**
 * A framework integration's configuration and the core configuration it becomes: `prefix` as
 * `basePath`, the environment applied once, the result kept per configuration object.
 */
import { type AuthConfig, setEnvDefaults } from "../index.js";
import { peerAddress } from "./client-address.js";
import { isProduction } from "./mode.js";

/**
 * The configuration of a framework integration (`SolidAuth`, the session helpers): core's
 * {@link AuthConfig} without `basePath` (it comes from `prefix`) and without `raw`.
 */
export type IntegrationConfig = Omit<AuthConfig, "raw" | "basePath"> & {
  /**
   * The path the auth route is mounted on, with no trailing slash. Default `/api/auth` (in
   * SolidStart, the route file `src/routes/api/auth/[...solidauth].ts`).
   */
  prefix?: string;
};

/** The default mount path of the auth route. */
export const DEFAULT_PREFIX = "/api/auth";

type Env = Record<string, string | undefined>;

function processEnv(): Env {
  const env = (globalThis as { process?: { env?: Env } }).process?.env;
  return env && typeof env === "object" ? env : {};
}

function envFlag(value: string | undefined): boolean | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  return !/^(false|0|no|off)$/i.test(value.trim());
}

/**
 * `/api/auth/` and `api/auth` become `/api/auth`. The site root (`/`, `""`) is refused with a
 * `TypeError`: the auth routes would shadow every page of the app.
 */
export function normalizePrefix(prefix: string | undefined): string {
  const trimmed = (prefix ?? DEFAULT_PREFIX).trim().replace(/\/+$/, "");
  if (trimmed === "") {
    throw new TypeError(
      'The auth route\'s "prefix" must name a path below the root, such as /api/auth',
    );
  }
  return trimmed.startsWith("/") ? trimmed : `/${trimmed}`;
}

/** What an integration's configuration becomes, built once per configuration object. */
export interface ResolvedIntegrationConfig {
  /** The configuration handed to core (its own object, so core's per-object cache hits). */
  core: AuthConfig;
  /** The normalised prefix: a leading slash, no trailing slash. */
  prefix: string;
}

const built = new WeakMap<IntegrationConfig, ResolvedIntegrationConfig>();

/**
 * The core configuration of an integration's configuration. Built on first use (so an
 * environment loaded after the module is imported still counts) and reused for every later
 * request: core resolves its configuration once per object, and a fresh object per request
 * would redo it.
 *
 * - `basePath` is the prefix.
 * - `trustHost`: the config's value, else `AUTH_TRUST_HOST`, else true outside production
 *   (`NODE_ENV !== "production"`), else core's environment rules (Vercel, Cloudflare Pages).
 * - `clientAddress`: the public socket address the integration handed over (outside
 *   production, a loopback one too), when neither `clientAddress` nor `trustedProxies`
 *   (`AUTH_TRUSTED_PROXIES`) is set.
 * - `secret`, `url`, provider credentials and the redirect proxy come from the environment
 *   through core's `setEnvDefaults` when the config leaves them out.
 *
 * A bad `prefix` throws the `TypeError` of {@link normalizePrefix}.
 */
export function resolveIntegrationConfig(config: IntegrationConfig): ResolvedIntegrationConfig {
  const known = built.get(config);
  if (known) return known;
  const env = processEnv();
  const { prefix: rawPrefix, ...rest } = config as IntegrationConfig & { basePath?: unknown };
  const prefix = normalizePrefix(rawPrefix);
  const core: AuthConfig = { ...rest, basePath: prefix };
  delete (core as { raw?: unknown }).raw;
  if (core.trustHost === undefined) {
    const fromEnv = envFlag(env.AUTH_TRUST_HOST);
    if (fromEnv !== undefined) core.trustHost = fromEnv;
    else if (!isProduction()) core.trustHost = true;
  }
  // Rate limits count per client: the socket address, unless the app says how to find it.
  const proxies = env.AUTH_TRUSTED_PROXIES?.trim();
  if (core.clientAddress === undefined && core.trustedProxies === undefined && !proxies) {
    core.clientAddress = peerAddress;
  }
  // The prefix is the mount path: a path in AUTH_URL never overrides it, and needs no warning.
  setEnvDefaults(env, core, true);
  const resolved = { core, prefix };
  built.set(config, resolved);
  return resolved;
}

/** Whether a pathname is the prefix itself or under it. */
export function underPrefix(pathname: string, prefix: string): boolean {
  return pathname === prefix || pathname.startsWith(`${prefix}/`);
}
