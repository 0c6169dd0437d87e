/**
 * Normalises and checks a configuration once per config object. The result (or the error) is
 * cached, so a request never pays for validation.
 */
import { normalizeBasePath } from "./base-path.js";
import { defaultCallbacks } from "./callbacks.js";
import { missingAdapterMethods } from "./capabilities.js";
import { type ProxyTrust, resolveTrustedProxies } from "./client-address.js";
import { resolveCookies } from "./cookies.js";
import { envPrefix, listFromEnv, processEnv, secretsFromEnv, trustHostFromEnv } from "./env.js";
import {
  AdapterError,
  AuthError,
  DuplicateConditionalUI,
  ExperimentalFeatureNotEnabled,
  InvalidEndpoints,
  InvalidProvider,
  MissingAdapter,
  MissingAdapterMethods,
  MissingAuthorize,
  MissingSecret,
  MissingWebAuthnAutocomplete,
  UnsupportedStrategy,
  UntrustedHost,
} from "./errors.js";
import { DEFAULT_MAX_AGE, decode, encode } from "./jwt.js";
import { resolveLogger } from "./logger.js";
import { normalizeOAuth } from "./oauth/provider.js";
import { parsePublicUrl } from "./origin.js";
import { carried } from "./provider-method.js";
import { raw, skipCSRFCheck } from "./symbols.js";
import type { ClientAddressResolver } from "./types/client-address.js";
import type {
  AuthConfig,
  CallbacksOptions,
  CookiesOptions,
  EventCallbacks,
  LoggerInstance,
  PagesOptions,
  SessionOptions,
  Theme,
} from "./types/config.js";
import type { JWTOptions } from "./types/jwt.js";
import type { Adapter } from "./types/models.js";
import type { ProviderConfig } from "./types/providers.js";

export { normalizeBasePath } from "./base-path.js";

/** A configuration after defaults and checks. */
export interface ResolvedConfig {
  basePath: string;
  /** The pinned public origin (`config.url` / `AUTH_URL`), if any. */
  url: URL | undefined;
  /** Whether `X-Forwarded-Host` may name the host (only consulted with a pinned origin). */
  trustHost: boolean;
  /** Origins the redirect proxy may forward a callback to (exact, or `https://*.example.com`). */
  redirectProxyOrigins: string[];
  secrets: string[];
  providers: ProviderConfig[];
  providerById: Map<string, ProviderConfig>;
  /**
   * Providers that cannot work as configured, by id, each with the error that names the fix
   * (logged once, when the configuration is read). They stay listed; starting a sign-in with one
   * answers the `Configuration` error page, and every other provider works.
   */
  unusableProviders: Map<string, AuthError>;
  adapter: Adapter | undefined;
  session: SessionOptions;
  jwt: JWTOptions;
  /** True when `jwt.encode`/`jwt.decode` are the built-in ones. */
  callbacks: Required<CallbacksOptions>;
  events: EventCallbacks;
  pages: PagesOptions;
  theme: Required<Theme>;
  logger: LoggerInstance;
  /** The cookies for a request: secure names on HTTPS unless `useSecureCookies` says otherwise. */
  cookies: (requestIsHttps: boolean) => CookiesOptions;
  skipCSRF: boolean;
  raw: boolean;
  debug: boolean;
  redirectProxyUrl: string | undefined;
  /** The `jwt` callback is the built-in identity: a session check cannot change the token. */
  identityJwtCallback: boolean;
  /** The configuration as the app wrote it: each feature reads its own key (./feature.ts). */
  source: AuthConfig;
  /** `trustedProxies` (or `AUTH_TRUSTED_PROXIES`), checked; unset: `X-Forwarded-For` is never read. */
  trustedProxies: ProxyTrust | undefined;
  /** The app's hook that gives the client's address. */
  clientAddress: ClientAddressResolver | undefined;
}

const cache = new WeakMap<AuthConfig, ResolvedConfig | AuthError>();
const providerId = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

function instantiate(entry: unknown): ProviderConfig {
  let provider: unknown;
  try {
    provider = typeof entry === "function" ? (entry as () => unknown)() : entry;
  } catch (cause) {
    throw new InvalidProvider("A provider factory threw", { cause });
  }
  if (typeof provider !== "object" || provider === null) {
    throw new InvalidProvider("A provider is not an object");
  }
  const p = provider as ProviderConfig;
  if (typeof p.id !== "string" || !providerId.test(p.id)) {
    throw new InvalidProvider("A provider has no valid id (letters, digits, '.', '_', '-')");
  }
  // A type the kernel does not know is accepted when the provider brings its own sign-in method
  // (a factory's provider, such as the password provider's: ./provider-method.ts).
  if (!["oauth", "oidc", "email", "credentials", "webauthn"].includes(p.type) && !carried(p)) {
    throw new InvalidProvider(`Provider "${p.id}" has an unknown type`);
  }
  const named = { ...p, name: typeof p.name === "string" && p.name ? p.name : p.id };
  return named.type === "oauth" || named.type === "oidc" ? normalizeOAuth(named) : named;
}

function checkWebAuthn(providers: ProviderConfig[]): void {
  const conditional = providers.filter((p) => p.type === "webauthn" && p.enableConditionalUI);
  if (conditional.length > 1) {
    throw new DuplicateConditionalUI("Only one WebAuthn provider may enable conditional UI");
  }
  for (const p of conditional) {
    const fields = Object.values(
      (p as { formFields?: Record<string, { autocomplete?: unknown }> }).formFields ?? {},
    );
    if (
      !fields.some((f) => typeof f.autocomplete === "string" && f.autocomplete.includes("webauthn"))
    ) {
      throw new MissingWebAuthnAutocomplete(
        `Provider "${p.id}" enables conditional UI but no form field has "webauthn" in its autocomplete`,
      );
    }
  }
}

function checkProvider(p: ProviderConfig): void {
  if (p.type === "credentials" && typeof p.authorize !== "function") {
    throw new MissingAuthorize(`Credentials provider "${p.id}" has no authorize function`);
  }
}

/**
 * What an OAuth or OpenID Connect provider lacks to work: an issuer or its endpoints, or a client
 * id. These usually come from the environment (`AUTH_<ID>_ID`, `AUTH_<ID>_ISSUER`), so one unset
 * variable must not take the other providers down with it.
 */
function missingOAuthOption(p: ProviderConfig): AuthError | undefined {
  if (p.type !== "oauth" && p.type !== "oidc") return undefined;
  if (!p.issuer && !p.wellKnown) {
    for (const endpoint of ["authorization", "token", "userinfo"] as const) {
      const value = p[endpoint];
      const url = typeof value === "string" ? value : value?.url;
      if (!url) {
        return new InvalidEndpoints(
          `Provider "${p.id}" needs an issuer (set ${envPrefix(p.id)}ISSUER or its issuer option), or ${endpoint === "authorization" ? "an" : "a"} ${endpoint} URL`,
        );
      }
    }
  }
  if (!p.clientId) {
    return new InvalidProvider(
      `Provider "${p.id}" has no client id: set ${envPrefix(p.id)}ID (or clientId in its options)`,
    );
  }
  return undefined;
}

function wrapAdapter(adapter: Adapter, logger: LoggerInstance): Adapter {
  const wrapped: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(adapter)) {
    if (typeof method !== "function") continue;
    wrapped[name] = async (...args: unknown[]) => {
      logger.debug(`adapter_${name}`);
      try {
        return await method.apply(adapter, args);
      } catch (cause) {
        throw new AdapterError(`Adapter method ${name} failed`, { cause });
      }
    };
  }
  return wrapped as Adapter;
}

/** The pinned origin: `config.url`, else `AUTH_URL`. A value that is not an http(s) URL is refused. */
function pinnedUrl(config: AuthConfig, env: Record<string, string | undefined>): URL | undefined {
  const value = config.url ?? (env.AUTH_URL || undefined);
  if (value === undefined) return undefined;
  const url = parsePublicUrl(value);
  if (!url) {
    const source = config.url === undefined ? "AUTH_URL" : "config.url";
    throw new UntrustedHost(
      `${source} must be the site's absolute http(s) URL, such as https://example.com (no query, fragment or credentials)`,
    );
  }
  return url;
}

/** Secrets from the config, else from `AUTH_SECRET` (and `AUTH_SECRET_1..3`). */
function configSecrets(config: AuthConfig, env: Record<string, string | undefined>): string[] {
  const own = (Array.isArray(config.secret) ? config.secret : [config.secret]).filter(
    (s): s is string => typeof s === "string" && s.length > 0,
  );
  return own.length > 0 ? own : secretsFromEnv(env);
}

function clientAddressHook(hook: unknown): ClientAddressResolver | undefined {
  if (hook === undefined || typeof hook === "function") return hook as ClientAddressResolver;
  throw new AuthError("clientAddress must be a function of the request");
}

/** The shortest secret a warning is not logged for: 32 characters (`openssl rand -base64 32`). */
const MIN_SECRET_LENGTH = 32;

function build(config: AuthConfig): ResolvedConfig {
  const logger = resolveLogger(config.logger, config.debug);
  if (config.debug) logger.warn("debug-enabled");
  const env = processEnv();
  const url = pinnedUrl(config, env);
  const trustHost = config.trustHost ?? trustHostFromEnv(env);
  if (!trustHost && !url) {
    throw new UntrustedHost(
      "The request's host is not trusted: set url (AUTH_URL) to the site's public URL, or trustHost: true (AUTH_TRUST_HOST=true) behind a proxy that sets Host safely",
    );
  }
  const secrets = configSecrets(config, env);
  if (secrets.length === 0) {
    throw new MissingSecret(
      "Set a secret: config.secret, or the AUTH_SECRET environment variable (`openssl rand -base64 32` makes one)",
    );
  }
  if (secrets.some((s) => s.length < MIN_SECRET_LENGTH)) logger.warn("weak-secret");
  if (!Array.isArray(config.providers)) {
    throw new InvalidProvider("config.providers must be an array");
  }
  const providers = config.providers.map(instantiate);
  const providerById = new Map<string, ProviderConfig>();
  const unusableProviders = new Map<string, AuthError>();
  for (const p of providers) {
    if (providerById.has(p.id)) throw new InvalidProvider(`Two providers share the id "${p.id}"`);
    providerById.set(p.id, p);
    checkProvider(p);
    const missing = missingOAuthOption(p);
    if (missing) unusableProviders.set(p.id, missing);
  }

  const strategy = config.session?.strategy ?? (config.adapter ? "database" : "jwt");
  if (strategy !== "jwt" && strategy !== "database") {
    throw new UnsupportedStrategy(`Unknown session strategy "${String(strategy)}"`);
  }
  const needsAdapter =
    strategy === "database" || providers.some((p) => p.type === "email" || p.type === "webauthn");
  if (needsAdapter && !config.adapter) {
    const why = strategy === "database" ? "Database sessions" : "Email and WebAuthn sign-in";
    throw new MissingAdapter(`${why} need an adapter`);
  }
  if (providers.some((p) => p.type === "webauthn")) {
    checkWebAuthn(providers);
    if (!config.experimental?.enableWebAuthn) {
      throw new ExperimentalFeatureNotEnabled(
        "WebAuthn is experimental: set experimental.enableWebAuthn to use it",
      );
    }
    logger.warn("experimental-webauthn");
  }
  if (config.adapter) {
    const missing = missingAdapterMethods(config.adapter, providers, strategy);
    if (missing.length > 0) {
      throw new MissingAdapterMethods(
        `The adapter lacks methods this configuration needs: ${missing.join(", ")}`,
      );
    }
  }

  const maxAge = config.session?.maxAge ?? DEFAULT_MAX_AGE;
  // The features' own session options (`session.revocation`) pass through as the app wrote them.
  const session: SessionOptions = {
    ...config.session,
    strategy,
    maxAge,
    updateAge: config.session?.updateAge ?? 24 * 60 * 60,
    generateSessionToken: config.session?.generateSessionToken ?? (() => crypto.randomUUID()),
    recordIp: config.session?.recordIp === true,
  };
  const jwt: JWTOptions = {
    maxAge: config.jwt?.maxAge ?? maxAge,
    encode: config.jwt?.encode ?? encode,
    decode: config.jwt?.decode ?? decode,
  };
  const cookieVariants: Partial<Record<"secure" | "plain", CookiesOptions>> = {};
  const cookies = (requestIsHttps: boolean) => {
    const secure = config.useSecureCookies ?? requestIsHttps;
    const key = secure ? "secure" : "plain";
    cookieVariants[key] ??= resolveCookies(secure, config.cookies);
    return cookieVariants[key];
  };

  const basePath =
    config.basePath === undefined && url && url.pathname !== "/"
      ? normalizeBasePath(url.pathname)
      : normalizeBasePath(config.basePath);
  return {
    basePath,
    url,
    trustHost,
    redirectProxyOrigins:
      config.redirectProxyOrigins ?? listFromEnv(env.AUTH_REDIRECT_PROXY_ORIGINS) ?? [],
    secrets,
    providers,
    providerById,
    unusableProviders: logUnusable(unusableProviders, logger),
    adapter: config.adapter ? wrapAdapter(config.adapter, logger) : undefined,
    session,
    jwt,
    callbacks: { ...defaultCallbacks, ...config.callbacks },
    events: config.events ?? {},
    pages: config.pages ?? {},
    theme: {
      colorScheme: config.theme?.colorScheme ?? "auto",
      logo: config.theme?.logo ?? "",
      brandColor: config.theme?.brandColor ?? "",
      buttonText: config.theme?.buttonText ?? "",
    },
    logger,
    cookies,
    skipCSRF: config.skipCSRFCheck === skipCSRFCheck,
    raw: config.raw === raw,
    debug: !!config.debug,
    redirectProxyUrl: config.redirectProxyUrl,
    identityJwtCallback: !config.callbacks?.jwt,
    source: config,
    trustedProxies: resolveTrustedProxies(config.trustedProxies, env.AUTH_TRUSTED_PROXIES),
    clientAddress: clientAddressHook(config.clientAddress),
  };
}

/** Logs each unusable provider's error once; only a configuration that works gets this far. */
function logUnusable(
  unusable: Map<string, AuthError>,
  logger: LoggerInstance,
): Map<string, AuthError> {
  for (const error of unusable.values()) logger.error(error);
  return unusable;
}

/**
 * The resolved configuration, built on first use and cached per config object.
 * Throws the cached `AuthError` for a broken configuration.
 */
export function resolveConfig(config: AuthConfig): ResolvedConfig {
  let entry = cache.get(config);
  if (!entry) {
    try {
      entry = build(config);
    } catch (error) {
      entry =
        error instanceof AuthError
          ? error
          : new AuthError("The configuration could not be read", { cause: error });
    }
    cache.set(config, entry);
  }
  if (entry instanceof AuthError) throw entry;
  return entry;
}

/** The logger of a configuration, even a broken one. */
export function configLogger(config: AuthConfig): LoggerInstance {
  return resolveLogger(config.logger, config.debug);
}
