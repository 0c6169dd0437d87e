/**
 * Environment defaults for framework integrations, and action URLs behind proxies.
 */
import { normalizeBasePath } from "./base-path.js";
import { firstHeaderValue, parsePublicUrl } from "./origin.js";
import type { AuthAction, AuthConfig, LoggerInstance } from "./types/config.js";
import type { ProviderConfig } from "./types/providers.js";

type Env = Record<string, string | undefined>;

/** `AUTH_<ID>_…` prefix for a provider id: uppercased, `-` as `_`. */
export function envPrefix(id: string): string {
  return `AUTH_${id.toUpperCase().replace(/-/g, "_")}_`;
}

/** The process environment, where the runtime has one; an empty object elsewhere. */
export function processEnv(): Env {
  const env = (globalThis as { process?: { env?: Env } }).process?.env;
  return env && typeof env === "object" ? env : {};
}

/** Whether an environment flag is set to a true-ish value ("false", "0", "no", "off" are false). */
export function flag(value: string | undefined): boolean | undefined {
  if (value === undefined || value === "") return undefined;
  return !/^(false|0|no|off)$/i.test(value.trim());
}

/** `AUTH_SECRET` and the rotation list `AUTH_SECRET_1..3` (highest number first). */
export function secretsFromEnv(env: Env): string[] {
  return [env.AUTH_SECRET_3, env.AUTH_SECRET_2, env.AUTH_SECRET_1, env.AUTH_SECRET].filter(
    (s): s is string => typeof s === "string" && s !== "",
  );
}

/** Whether the environment says the host can be trusted: `AUTH_TRUST_HOST`, Vercel, Cloudflare Pages. */
export function trustHostFromEnv(env: Env): boolean {
  return flag(env.AUTH_TRUST_HOST) ?? (!!env.VERCEL || !!env.CF_PAGES);
}

/** A comma-separated environment list, trimmed, empty entries dropped. */
export function listFromEnv(value: string | undefined): string[] | undefined {
  if (!value) return undefined;
  const list = value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  return list.length > 0 ? list : undefined;
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
 * rotation, highest number first), `AUTH_URL` (the pinned public origin `url`, and the base path
 * from its path), `AUTH_TRUST_HOST`, `AUTH_REDIRECT_PROXY_URL`, `AUTH_REDIRECT_PROXY_ORIGINS`, and
 * each provider's `AUTH_<ID>_ID`, `_SECRET`, `_ISSUER`, `_KEY`. Values set in the config win.
 * `AUTH_URL` alone does not make `trustHost` true: with a pinned origin the `Host` header is
 * checked against it instead of trusted. Call it once, when the config is built.
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
  if (config.url === undefined && authUrl) config.url = authUrl;
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
    const secrets = secretsFromEnv(env);
    if (secrets.length > 0) config.secret = secrets.length === 1 ? secrets[0] : secrets;
  }
  config.redirectProxyUrl ??= env.AUTH_REDIRECT_PROXY_URL || undefined;
  config.redirectProxyOrigins ??= listFromEnv(env.AUTH_REDIRECT_PROXY_ORIGINS);
  config.trustHost ??= trustHostFromEnv(env);
  config.providers = (config.providers ?? []).map((entry) => {
    const provider =
      typeof entry === "function" ? (entry as () => ProviderConfig)() : (entry as ProviderConfig);
    return providerWithEnv(provider, env);
  });
}

/**
 * The absolute URL of an action: from `config.url` or `AUTH_URL` when set, else from the host
 * and protocol of the request. The `X-Forwarded-Host` and `X-Forwarded-Proto` headers are read
 * only when the host is trusted (`config.trustHost`, else `AUTH_TRUST_HOST`), and only their first
 * value; a protocol other than `http`/`https` is ignored. `config.basePath` wins over the path of
 * `AUTH_URL`.
 *
 * @example
 * ```ts
 * import { createActionURL } from "@gatehousejs/core";
 *
 * const headers = new Headers({ host: "example.com" });
 * const url = createActionURL("signout", "https", headers, {}, { basePath: "/api/auth" });
 * // url.href === "https://example.com/api/auth/signout"
 * ```
 */
export function createActionURL(
  action: AuthAction,
  protocol: string,
  headers: Headers,
  envObject: Env,
  config: {
    basePath?: string;
    logger?: Partial<LoggerInstance>;
    trustHost?: boolean;
    url?: string | URL;
  },
): URL {
  const env = envObject ?? {};
  const configured = config.url ?? env.AUTH_URL ?? env.NEXTAUTH_URL;
  const pinned = configured === undefined ? undefined : parsePublicUrl(configured);
  let base: URL;
  if (pinned) {
    base = new URL(pinned.href);
    if (config.basePath && config.basePath !== "/" && base.pathname !== "/") {
      if (base.pathname.replace(/\/+$/, "") !== normalizeBasePath(config.basePath)) {
        (config.logger?.warn ?? console.warn)("env-url-basepath-mismatch");
      }
      base.pathname = "/";
    }
  } else {
    const trust = config.trustHost ?? trustHostFromEnv(env);
    const forwardedHost = trust ? firstHeaderValue(headers.get("x-forwarded-host")) : undefined;
    const forwardedProto = trust ? firstHeaderValue(headers.get("x-forwarded-proto")) : undefined;
    const host = forwardedHost ?? firstHeaderValue(headers.get("host")) ?? "localhost";
    const scheme = (value: string | undefined) => {
      const v = value?.toLowerCase().replace(/:$/, "");
      return v === "http" || v === "https" ? v : undefined;
    };
    const proto = scheme(forwardedProto) ?? scheme(protocol) ?? "https";
    const candidate = `${proto}://${host}`;
    // A host header that is not a host (a path, credentials, spaces) falls back to localhost.
    base =
      /^[\w.:[\]-]+$/.test(host) && URL.canParse(candidate)
        ? new URL(candidate)
        : new URL(`${proto}://localhost`);
  }
  const root = base.href.replace(/\/+$/, "");
  const path = config.basePath ? normalizeBasePath(config.basePath) : "";
  return new URL(`${root}${path}/${action}`);
}
