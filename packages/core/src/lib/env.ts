/**
 * Environment defaults for framework integrations, and action URLs behind proxies.
 */
import { normalizeBasePath } from "./base-path.js";
import type { AuthAction, AuthConfig, LoggerInstance } from "./types/config.js";
import type { ProviderConfig } from "./types/providers.js";

type Env = Record<string, string | undefined>;

/** `AUTH_<ID>_…` prefix for a provider id: uppercased, `-` as `_`. */
export function envPrefix(id: string): string {
  return `AUTH_${id.toUpperCase().replace(/-/g, "_")}_`;
}

/** Whether an environment flag is set to a true-ish value ("false", "0", "no", "off" are false). */
function flag(value: string | undefined): boolean | undefined {
  if (value === undefined || value === "") return undefined;
  return !/^(false|0|no|off)$/i.test(value.trim());
}

function providerWithEnv(provider: ProviderConfig, env: Env): ProviderConfig {
  const prefix = envPrefix(provider.id);
  const fromEnv: Record<string, string | undefined> = {
    clientId: env[`${prefix}ID`],
    clientSecret: env[`${prefix}SECRET`],
    issuer: env[`${prefix}ISSUER`],
    apiKey: env[`${prefix}KEY`],
  };
  const out: Record<string, unknown> = { ...provider };
  const keys =
    provider.type === "oauth" || provider.type === "oidc"
      ? ["clientId", "clientSecret", "issuer"]
      : provider.type === "email"
        ? ["apiKey"]
        : [];
  for (const key of keys)
    if (out[key] === undefined && fromEnv[key] !== undefined) out[key] = fromEnv[key];
  return out as unknown as ProviderConfig;
}

/**
 * Fills a configuration's gaps from the environment: `AUTH_SECRET` (and `AUTH_SECRET_1..3` for
 * rotation, highest number first), `AUTH_URL` (base path and trusted host), `AUTH_TRUST_HOST`,
 * `AUTH_REDIRECT_PROXY_URL`, and each provider's `AUTH_<ID>_ID`, `_SECRET`, `_ISSUER`, `_KEY`.
 * Values set in the config win. Call it once, when the config is built.
 *
 * @example
 * ```ts
 * const config = { providers: [GitHub] };
 * setEnvDefaults(process.env, config);
 * ```
 */
export function setEnvDefaults(
  envObject: Env,
  config: AuthConfig,
  suppressBasePathWarning = false,
): void {
  const env = envObject ?? {};
  const logger = config.logger;
  const authUrl = env.AUTH_URL;
  if (authUrl && URL.canParse(authUrl)) {
    const { pathname } = new URL(authUrl);
    if (config.basePath === undefined) {
      if (pathname !== "/") config.basePath = pathname;
    } else if (!suppressBasePathWarning) {
      (logger?.warn ?? console.warn)("env-url-basepath-redundant");
    }
  }
  config.basePath ??= "/auth";

  const secretEmpty =
    !config.secret || (Array.isArray(config.secret) && config.secret.length === 0);
  if (secretEmpty) {
    const secrets = [
      env.AUTH_SECRET_3,
      env.AUTH_SECRET_2,
      env.AUTH_SECRET_1,
      env.AUTH_SECRET,
    ].filter((s): s is string => typeof s === "string" && s !== "");
    if (secrets.length > 0) config.secret = secrets.length === 1 ? secrets[0] : secrets;
  }
  config.redirectProxyUrl ??= env.AUTH_REDIRECT_PROXY_URL || undefined;
  config.trustHost ??= !!authUrl || (flag(env.AUTH_TRUST_HOST) ?? (!!env.VERCEL || !!env.CF_PAGES));
  config.providers = (config.providers ?? []).map((entry) => {
    const provider =
      typeof entry === "function" ? (entry as () => ProviderConfig)() : (entry as ProviderConfig);
    return providerWithEnv(provider, env);
  });
}

/**
 * The absolute URL of an action: from `AUTH_URL` when set, else from the (forwarded) host and
 * protocol headers; `config.basePath` wins over the path of `AUTH_URL`.
 *
 * @example
 * ```ts
 * createActionURL("signout", "https", request.headers, process.env, { basePath: "/api/auth" })
 * // https://example.com/api/auth/signout
 * ```
 */
export function createActionURL(
  action: AuthAction,
  protocol: string,
  headers: Headers,
  envObject: Env,
  config: { basePath?: string; logger?: Partial<LoggerInstance> },
): URL {
  const env = envObject ?? {};
  const envUrl = env.AUTH_URL ?? env.NEXTAUTH_URL;
  let base: URL;
  if (envUrl && URL.canParse(envUrl)) {
    base = new URL(envUrl);
    if (config.basePath && config.basePath !== "/" && base.pathname !== "/") {
      if (base.pathname !== config.basePath) {
        (config.logger?.warn ?? console.warn)("env-url-basepath-mismatch");
      }
      base.pathname = "/";
    }
  } else {
    const host = headers.get("x-forwarded-host") ?? headers.get("host") ?? "localhost";
    const proto = headers.get("x-forwarded-proto") ?? protocol ?? "https";
    base = new URL(`${proto.endsWith(":") ? proto : `${proto}:`}//${host}`);
  }
  const root = base.href.replace(/\/+$/, "");
  const path = config.basePath ? normalizeBasePath(config.basePath) : "";
  return new URL(`${root}${path}/${action}`);
}
