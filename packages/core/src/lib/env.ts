/**
 * Environment defaults for framework integrations (action URLs are in ./action-url.ts).
 */
import type { AuthConfig } from "./types/config.js";
import type { ProviderConfig } from "./types/providers.js";

export type Env = Record<string, string | undefined>;

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
