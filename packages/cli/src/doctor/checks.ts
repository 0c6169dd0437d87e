/**
 * The doctor's checks: pure functions of a configuration (as the app wrote it) and an
 * environment, each finding a problem (`error`: sign-in fails or is unsafe), a risk (`warning`)
 * or a fact worth knowing (`info`: a callback URL to register). None prints a secret's value.
 */
import { type ProviderInfo, providersOf, strategyOf } from "../config/features.js";
import type { LoadedConfig } from "../config/load.js";

/** One finding. */
export interface Finding {
  level: "error" | "warning" | "info";
  /** What it is about: `secret`, `url`, `provider github`, `adapter`, `rate limits`, `schema`. */
  topic: string;
  message: string;
}

/** The environment, as `process.env`. */
export type Env = Record<string, string | undefined>;

const flag = (value: string | undefined): boolean | undefined =>
  value === undefined || value === "" ? undefined : !/^(false|0|no|off)$/i.test(value.trim());

/** Words found in example and placeholder secrets, never in a random one. */
const PLACEHOLDER =
  /secret|change|your|placeholder|example|replace|todo|xxxx|openssl|password|test|demo|default/i;

/** The shortest secret core accepts without a warning, in characters. */
export const MIN_SECRET_LENGTH = 32;

/** Checks the secret(s): present, long, not a placeholder, not one character repeated. */
export function checkSecret(config: LoadedConfig, env: Env): Finding[] {
  const fromConfig = Array.isArray(config.secret)
    ? config.secret
    : config.secret
      ? [config.secret]
      : [];
  const fromEnv = ["AUTH_SECRET", "AUTH_SECRET_1", "AUTH_SECRET_2", "AUTH_SECRET_3"]
    .map((name) => [name, env[name]] as const)
    .filter((e): e is readonly [string, string] => typeof e[1] === "string" && e[1] !== "");
  const secrets: [string, string][] =
    fromConfig.length > 0
      ? fromConfig.map((s, i) => [`config.secret${fromConfig.length > 1 ? `[${i}]` : ""}`, s])
      : fromEnv.map(([name, value]) => [name, value]);
  if (secrets.length === 0) {
    return [
      {
        level: "error",
        topic: "secret",
        message: "no secret: set AUTH_SECRET (`npx gatehouse secret --write` adds one to .env)",
      },
    ];
  }
  const findings: Finding[] = [];
  for (const [name, value] of secrets) {
    if (value.length < MIN_SECRET_LENGTH) {
      findings.push({
        level: "error",
        topic: "secret",
        message: `${name} is ${value.length} characters: use at least ${MIN_SECRET_LENGTH} random ones (\`npx gatehouse secret\`)`,
      });
    } else if (PLACEHOLDER.test(value) || new Set(value).size < 12) {
      findings.push({
        level: "error",
        topic: "secret",
        message: `${name} looks like a placeholder, not a random value: replace it (\`npx gatehouse secret\`)`,
      });
    }
  }
  return findings;
}

/** The public origin and base path, as core derives them. */
export interface Site {
  origin: string | undefined;
  basePath: string;
}

/** Checks `url` / `AUTH_URL` and `trustHost` / `AUTH_TRUST_HOST`; returns the site too. */
export function checkUrl(config: LoadedConfig, env: Env): { findings: Finding[]; site: Site } {
  const findings: Finding[] = [];
  const raw = config.url !== undefined ? String(config.url) : env.AUTH_URL || undefined;
  const trustHost =
    config.trustHost ?? flag(env.AUTH_TRUST_HOST) ?? (!!env.VERCEL || !!env.CF_PAGES);
  let origin: string | undefined;
  let path: string | undefined;
  if (raw !== undefined) {
    if (!URL.canParse(raw)) {
      findings.push({ level: "error", topic: "url", message: "url (AUTH_URL) is not a URL" });
    } else {
      const url = new URL(raw);
      origin = url.origin;
      path = url.pathname !== "/" ? url.pathname.replace(/\/$/, "") : undefined;
      const local = /^(localhost|127\.0\.0\.1|\[::1\])$/.test(url.hostname);
      if (url.protocol !== "https:" && !local) {
        findings.push({
          level: "warning",
          topic: "url",
          message: `url (AUTH_URL) is ${url.protocol}// on a public host: cookies are not Secure; use https`,
        });
      }
    }
  } else if (!trustHost) {
    findings.push({
      level: "error",
      topic: "url",
      message:
        "neither url (AUTH_URL) nor trustHost (AUTH_TRUST_HOST) is set: every request is refused. Set AUTH_URL to the site's public URL",
    });
  } else {
    findings.push({
      level: "info",
      topic: "url",
      message:
        "trustHost without url: links and redirects follow the request's Host header; set AUTH_URL in production unless your proxy sets Host",
    });
  }
  const basePath = config.basePath ?? path ?? "/auth";
  return { findings, site: { origin, basePath } };
}

const envPrefix = (id: string) => `AUTH_${id.toUpperCase().replace(/-/g, "_")}_`;

/** Checks each provider's settings and variables; lists the OAuth callback URLs to register. */
export function checkProviders(config: LoadedConfig, env: Env, site: Site): Finding[] {
  const findings: Finding[] = [];
  let providers: ProviderInfo[];
  try {
    providers = providersOf(config);
  } catch {
    return [
      { level: "error", topic: "providers", message: "a provider function threw when called" },
    ];
  }
  if (providers.length === 0) {
    findings.push({
      level: "error",
      topic: "providers",
      message: "no providers: nobody can sign in",
    });
  }
  const ids = new Set<string>();
  for (const p of providers) {
    const topic = `provider ${p.id}`;
    if (ids.has(p.id))
      findings.push({ level: "error", topic, message: `two providers share the id "${p.id}"` });
    ids.add(p.id);
    const prefix = envPrefix(p.id);
    const o = p.options;
    if (p.type === "oauth" || p.type === "oidc") {
      if (!o.clientId && !env[`${prefix}ID`]) {
        findings.push({
          level: "error",
          topic,
          message: `no client id: set ${prefix}ID (or clientId)`,
        });
      }
      const method = (o.client as { token_endpoint_auth_method?: string } | undefined)
        ?.token_endpoint_auth_method;
      if (
        !o.clientSecret &&
        !env[`${prefix}SECRET`] &&
        method !== "none" &&
        method !== "private_key_jwt"
      ) {
        findings.push({
          level: "error",
          topic,
          message: `no client secret: set ${prefix}SECRET (or clientSecret)`,
        });
      }
      if (p.type === "oidc" && !o.issuer && !o.wellKnown && !env[`${prefix}ISSUER`]) {
        findings.push({
          level: "error",
          topic,
          message: `no issuer: set ${prefix}ISSUER (or issuer)`,
        });
      }
      const origin = site.origin ?? "https://<your host>";
      findings.push({
        level: "info",
        topic,
        message: `register the callback URL ${origin}${site.basePath}/callback/${p.id}`,
      });
    }
    if (p.type === "email" && p.id === "nodemailer" && !o.server && !o.sendVerificationRequest) {
      if (!env.AUTH_NODEMAILER_SERVER && !env.EMAIL_SERVER) {
        findings.push({
          level: "error",
          topic,
          message: "no SMTP server: set EMAIL_SERVER (or AUTH_NODEMAILER_SERVER, or server)",
        });
      }
    }
    if (p.type === "webauthn" && !config.experimental?.enableWebAuthn) {
      findings.push({
        level: "error",
        topic,
        message: "WebAuthn is experimental: set experimental: { enableWebAuthn: true }",
      });
    }
  }
  return findings;
}

/** The adapter methods each part of a configuration cannot do without (as core checks them). */
export const REQUIRED_METHODS = {
  databaseSessions: ["createSession", "getSessionAndUser", "updateSession", "deleteSession"],
  credentialsDatabase: ["getUser"],
  oauth: ["getUser", "getUserByAccount", "getUserByEmail", "createUser", "linkAccount"],
  email: [
    "createVerificationToken",
    "useVerificationToken",
    "getUserByEmail",
    "getUserByAccount",
    "getUser",
    "createUser",
    "updateUser",
    "linkAccount",
  ],
  webauthn: [
    "createUser",
    "getUser",
    "getUserByEmail",
    "linkAccount",
    "getAccount",
    "getAuthenticator",
    "createAuthenticator",
    "listAuthenticatorsByUserId",
    "updateAuthenticatorCounter",
  ],
  password: [
    "createUser",
    "getUser",
    "getUserByEmail",
    "updateUser",
    "linkAccount",
    "getAccount",
    "updateAccount",
    "createVerificationToken",
    "useVerificationToken",
  ],
} as const;

/** Optional methods whose absence changes what users get, and what. */
const OPTIONAL: { method: string; when: (c: Ctx) => boolean; without: string }[] = [
  {
    method: "listSessionsByUserId",
    when: (c) => c.database,
    without: "users cannot list or end their database sessions",
  },
  {
    method: "deleteAuthenticator",
    when: (c) => c.types.has("webauthn"),
    without: "users cannot remove a passkey",
  },
  {
    method: "updateAccount",
    when: (c) => c.types.has("oauth") || c.types.has("oidc"),
    without: "refreshed provider tokens are not stored (getAccessToken needs it)",
  },
  {
    method: "listAccountsByUserId",
    when: (c) => c.types.has("oauth") || c.types.has("oidc") || c.types.has("email"),
    without: "Gatehouse cannot tell which accounts a user holds (getAccessToken needs it)",
  },
  {
    method: "countVerificationTokenTry",
    when: (c) => c.types.has("email"),
    without: "sign-in code tries are counted in the rate-limit store instead",
  },
];

interface Ctx {
  types: Set<string>;
  database: boolean;
}

/** Checks that the adapter has what the configured features need. */
export function checkAdapter(config: LoadedConfig): Finding[] {
  const providers = providersOf(config);
  const types = new Set(providers.map((p) => p.type));
  const database = strategyOf(config) === "database";
  const adapter = config.adapter;
  const needsAdapter =
    database || types.has("email") || types.has("webauthn") || types.has("password");
  if (!adapter) {
    if (!needsAdapter) return [];
    const what = [
      database && "database sessions",
      types.has("email") && "email sign-in",
      types.has("webauthn") && "passkeys",
      types.has("password") && "the password provider",
    ].filter(Boolean);
    const verb = what.length > 1 ? "need" : "needs";
    return [{ level: "error", topic: "adapter", message: `${what.join(", ")} ${verb} an adapter` }];
  }
  const needed = new Set<string>([
    ...(database ? REQUIRED_METHODS.databaseSessions : []),
    ...(database && types.has("credentials") ? REQUIRED_METHODS.credentialsDatabase : []),
    ...(types.has("oauth") || types.has("oidc") ? REQUIRED_METHODS.oauth : []),
    ...(types.has("email") ? REQUIRED_METHODS.email : []),
    ...(types.has("webauthn") ? REQUIRED_METHODS.webauthn : []),
    ...(types.has("password") ? REQUIRED_METHODS.password : []),
  ]);
  const has = (m: string) => typeof adapter[m] === "function";
  const findings: Finding[] = [];
  const missing = [...needed].filter((m) => !has(m)).sort();
  if (missing.length > 0) {
    findings.push({
      level: "error",
      topic: "adapter",
      message: `the adapter lacks ${missing.join(", ")}, which this configuration needs`,
    });
  }
  const ctx: Ctx = { types, database };
  for (const o of OPTIONAL) {
    if (o.when(ctx) && !has(o.method)) {
      findings.push({
        level: "warning",
        topic: "adapter",
        message: `no ${o.method}: ${o.without}`,
      });
    }
  }
  return findings;
}

/** Checks that rate limits per client address can tell clients apart. */
export function checkClientAddress(config: LoadedConfig, env: Env): Finding[] {
  if (config.rateLimit === false) return [];
  if (config.trustedProxies !== undefined || env.AUTH_TRUSTED_PROXIES || config.clientAddress)
    return [];
  return [
    {
      level: "warning",
      topic: "rate limits",
      message:
        "neither trustedProxies (AUTH_TRUSTED_PROXIES) nor clientAddress is set: behind a proxy or load balancer, set AUTH_TRUSTED_PROXIES (its hop count or CIDR ranges), or limits per client address only work where the framework integration passes the socket's public address",
    },
  ];
}

/** Every configuration check, in the order printed. */
export function checkConfig(config: LoadedConfig, env: Env): Finding[] {
  const url = checkUrl(config, env);
  return [
    ...checkSecret(config, env),
    ...url.findings,
    ...checkProviders(config, env, url.site),
    ...checkAdapter(config),
    ...checkClientAddress(config, env),
  ];
}
