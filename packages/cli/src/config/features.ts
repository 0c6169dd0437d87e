/**
 * The schema features a configuration uses, read from the configuration as the app wrote it.
 */
import type { SchemaFeatures } from "../schema/index.js";
import type { LoadedConfig } from "./load.js";

/** A provider as configured, reduced to what is read here. */
export interface ProviderInfo {
  id: string;
  type: string;
  name?: string;
  options: Record<string, unknown>;
}

/** The providers of a configuration, a function entry called as core does. */
export function providersOf(config: LoadedConfig): ProviderInfo[] {
  return (config.providers ?? []).map((entry) => {
    const p = (typeof entry === "function" ? (entry as () => unknown)() : entry) as Record<
      string,
      unknown
    >;
    return {
      id: String(p?.id ?? "?"),
      type: String(p?.type ?? "?"),
      ...(typeof p?.name === "string" ? { name: p.name } : {}),
      options: p ?? {},
    };
  });
}

/** The session strategy as core decides it: `database` with an adapter unless set. */
export function strategyOf(config: LoadedConfig): "jwt" | "database" {
  const set = config.session?.strategy;
  if (set === "jwt" || set === "database") return set;
  return config.adapter ? "database" : "jwt";
}

/** Each detected feature with the part of the configuration that turned it on. */
export interface Detected {
  features: SchemaFeatures;
  why: Partial<Record<keyof SchemaFeatures, string>>;
}

const storeOf = (value: unknown) =>
  typeof value === "object" && value !== null ? (value as { store?: unknown }).store : undefined;

/**
 * The features a configuration uses. A store (revocation, security log, rate limit) counts as
 * one that needs tables: it may be Redis or memory instead, which the command line cannot always
 * tell; `--without <feature>` leaves its tables out.
 */
export function detectFeatures(config: LoadedConfig): Detected {
  const providers = providersOf(config);
  const types = new Set(providers.map((p) => p.type));
  const adapter = config.adapter !== undefined && config.adapter !== null;
  const why: Detected["why"] = {};
  const on = (name: keyof SchemaFeatures, reason: string | false) => {
    if (reason) why[name] = reason;
    return reason !== false;
  };
  const features: SchemaFeatures = {
    adapter: on("adapter", adapter && "adapter"),
    databaseSessions: on(
      "databaseSessions",
      adapter && strategyOf(config) === "database" && 'session.strategy "database"',
    ),
    // The password provider's reset and sign-up links are verification tokens too.
    email: on(
      "email",
      types.has("email")
        ? "an email provider"
        : types.has("password") && "the password provider (its email links)",
    ),
    webauthn: on("webauthn", types.has("webauthn") && "a WebAuthn (passkey) provider"),
    password: on("password", types.has("password") && "the password provider"),
    tokenRefresh: on(
      "tokenRefresh",
      adapter && (types.has("oauth") || types.has("oidc")) && "OAuth providers with an adapter",
    ),
    revocation: on(
      "revocation",
      config.session?.revocation?.store !== undefined && "session.revocation.store",
    ),
    securityLog: on(
      "securityLog",
      config.securityLog !== false &&
        storeOf(config.securityLog) !== undefined &&
        "securityLog.store",
    ),
    rateLimit: on(
      "rateLimit",
      config.rateLimit !== false && storeOf(config.rateLimit) !== undefined && "rateLimit.store",
    ),
  };
  return { features, why };
}
