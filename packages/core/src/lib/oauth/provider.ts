/**
 * OAuth provider normalisation, once per configuration: credentials from the environment,
 * default checks and client authentication, endpoint parameters.
 */
import { envPrefix, processEnv } from "../env.js";
import { customFetch } from "../symbols.js";
import type { CustomFetch } from "../types/config.js";
import type { EndpointConfig, OAuthCheck, OAuthConfig } from "../types/providers.js";

/** How the client authenticates at the token endpoint. */
export type ClientAuthMethod = "client_secret_basic" | "client_secret_post" | "none";

/** An OAuth provider, normalised. */
export interface OAuthProvider extends OAuthConfig {
  clientId: string;
  checks: OAuthCheck[];
  authMethod: ClientAuthMethod;
  fetch: CustomFetch | undefined;
}

/** The URL of an endpoint given as a string or `{ url }`. */
export function endpointUrl(endpoint: EndpointConfig | undefined): string | undefined {
  return typeof endpoint === "string" ? endpoint : endpoint?.url;
}

/** The parameters of an endpoint given as `{ params }`, resolved for this provider. */
export function endpointParams(
  endpoint: EndpointConfig | undefined,
  provider: OAuthProvider,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (!endpoint || typeof endpoint === "string") return out;
  for (const [key, raw] of Object.entries(endpoint.params ?? {})) {
    const value = typeof raw === "function" ? raw(provider) : raw;
    if (value === undefined || value === null) continue;
    out[key] = typeof value === "object" ? JSON.stringify(value) : String(value);
  }
  return out;
}

/**
 * Fills in what the configuration left out. Credentials are read from `AUTH_<ID>_ID`,
 * `AUTH_<ID>_SECRET` and `AUTH_<ID>_ISSUER` now, when the configuration is first used, so a
 * provider configured only through the environment works.
 */
export function normalizeOAuth(provider: OAuthConfig): OAuthProvider {
  const vars = processEnv();
  const prefix = envPrefix(provider.id);
  const clientId = provider.clientId ?? vars[`${prefix}ID`] ?? "";
  const clientSecret = provider.clientSecret ?? vars[`${prefix}SECRET`];
  const issuer = provider.issuer ?? vars[`${prefix}ISSUER`];
  const requested = provider.client?.token_endpoint_auth_method;
  const authMethod: ClientAuthMethod =
    requested === "client_secret_post" || requested === "none"
      ? requested
      : requested === undefined && !clientSecret
        ? "none"
        : "client_secret_basic";
  const checks = provider.checks?.length ? [...provider.checks] : ["pkce" as const];
  return {
    ...provider,
    clientId,
    clientSecret,
    issuer,
    checks,
    authMethod,
    fetch: provider[customFetch] as CustomFetch | undefined,
  };
}
