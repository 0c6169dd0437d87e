/**
 * Authorization-server metadata (from discovery, cached per issuer, or from the configured
 * endpoints), the client, and the options every `oauth4webapi` call shares.
 */
import * as oauth from "oauth4webapi";
import { OAuthSignInError } from "../errors.js";
import { endpointUrl, type OAuthProvider } from "./provider.js";
import { discoveredIssuerMatches } from "./tenant.js";

const discovered = new Map<string, Promise<oauth.AuthorizationServer>>();
/** Providers with their own fetch discover on their own: it may see a different network. */
const discoveredWithFetch = new WeakMap<
  typeof fetch,
  Map<string, Promise<oauth.AuthorizationServer>>
>();

function isLoopback(url: string): boolean {
  const { hostname } = new URL(url);
  return (
    hostname === "localhost" ||
    hostname.endsWith(".localhost") ||
    hostname === "[::1]" ||
    /^127(?:\.\d{1,3}){3}$/.test(hostname)
  );
}

/**
 * Refuses a URL that Gatehouse would call over plain HTTP on a non-loopback host: codes, tokens
 * and secrets never cross a network in clear. `https:` and loopback `http:` pass.
 */
export function requireSecureTransport(url: string, what: string): void {
  const { protocol } = new URL(url);
  if (protocol === "https:") return;
  if (protocol === "http:" && isLoopback(url)) return;
  throw new TypeError(`The ${what} must be an https URL (plain http only for loopback hosts)`);
}

/**
 * Options for `oauth4webapi` requests: the provider's custom fetch, and plain HTTP allowed only
 * for loopback hosts (development and tests), never for the open internet.
 */
export function httpOptions(provider: OAuthProvider, url: string | undefined) {
  const options: { [oauth.customFetch]?: typeof fetch; [oauth.allowInsecureRequests]?: boolean } =
    {};
  if (provider.fetch) options[oauth.customFetch] = provider.fetch;
  if (url?.startsWith("http:") && isLoopback(url)) options[oauth.allowInsecureRequests] = true;
  return options;
}

async function discover(provider: OAuthProvider): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(provider.issuer!);
  const wellKnown = provider.wellKnown;
  let response: Response;
  if (wellKnown) {
    requireSecureTransport(wellKnown, "wellKnown discovery URL");
    const fetchImpl = provider.fetch ?? fetch;
    response = await fetchImpl(wellKnown, {
      headers: { accept: "application/json" },
      redirect: "manual",
    });
  } else {
    response = await oauth.discoveryRequest(issuer, {
      algorithm: provider.type === "oidc" ? "oidc" : "oauth2",
      ...httpOptions(provider, issuer.href),
    });
  }
  return processDiscovery(issuer, response);
}

/**
 * `processDiscoveryResponse`, where a tenant alias (`common`, `organizations`, `consumers`) may
 * name its `{tenantid}` template or a tenant's issuer instead of its own URL (see tenant.ts).
 */
async function processDiscovery(
  issuer: URL,
  response: Response,
): Promise<oauth.AuthorizationServer> {
  if (response.ok) {
    const named: unknown = await response
      .clone()
      .json()
      .then((document: { issuer?: unknown } | null) => document?.issuer)
      .catch(() => undefined);
    if (
      typeof named === "string" &&
      named !== issuer.href &&
      discoveredIssuerMatches(issuer.href, named)
    ) {
      return oauth.processDiscoveryResponse(new URL(named), response);
    }
  }
  return oauth.processDiscoveryResponse(issuer, response);
}

/** The provider's authorization server: discovered once per issuer, or built from its endpoints. */
export async function authorizationServer(
  provider: OAuthProvider,
): Promise<oauth.AuthorizationServer> {
  const configured = {
    authorization_endpoint: endpointUrl(provider.authorization),
    token_endpoint: endpointUrl(provider.token),
    userinfo_endpoint: endpointUrl(provider.userinfo),
  };
  if (!provider.issuer) {
    // No issuer: a plain OAuth 2 server described by its endpoints. The placeholder issuer is
    // never compared with anything, because such providers send no ID token and their `iss`
    // callback parameter is dropped.
    return { issuer: "https://gatehouse.invalid", ...configured };
  }
  const key = `${provider.type}|${provider.issuer}|${provider.wellKnown ?? ""}`;
  let cache = discovered;
  if (provider.fetch) {
    cache = discoveredWithFetch.get(provider.fetch) ?? new Map();
    discoveredWithFetch.set(provider.fetch, cache);
  }
  let pending = cache.get(key);
  if (!pending) {
    pending = discover(provider);
    cache.set(key, pending);
    pending.catch(() => cache.delete(key));
  }
  let metadata: oauth.AuthorizationServer;
  try {
    metadata = await pending;
  } catch (cause) {
    throw new OAuthSignInError(`Discovery failed for provider "${provider.id}"`, { cause });
  }
  return {
    ...metadata,
    ...Object.fromEntries(Object.entries(configured).filter(([, v]) => v !== undefined)),
  };
}

/** The client metadata and authentication for the token endpoint. */
export function client(provider: OAuthProvider): {
  client: oauth.Client;
  auth: oauth.ClientAuth;
} {
  const secret = provider.clientSecret ?? "";
  const auth =
    provider.authMethod === "client_secret_post"
      ? oauth.ClientSecretPost(secret)
      : provider.authMethod === "none"
        ? oauth.None()
        : oauth.ClientSecretBasic(secret);
  return { client: { client_id: provider.clientId }, auth };
}
