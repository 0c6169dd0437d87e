/**
 * The protocol half of an OAuth callback: verify the checks, exchange the code, validate the
 * ID token (OIDC) or fetch the user info (OAuth). Decisions about users live elsewhere.
 */
import * as oauth from "oauth4webapi";
import { useCheck } from "../../checks.js";
import type { Context } from "../../context.js";
import { AuthError, InvalidCheck, OAuthCallbackError } from "../../errors.js";
import { endpointParams, endpointUrl } from "../../oauth/provider.js";
import {
  authorizationServer,
  client,
  httpOptions,
  requireSecureTransport,
} from "../../oauth/server.js";
import { forTenantToken } from "../../oauth/tenant.js";
import type { Profile } from "../../types/models.js";
import type { TokenSet } from "../../types/providers.js";
import { type OAuthInternalProvider, proxyFor, redirectUri } from "./start.js";

/** What the provider told us about the user. */
export interface OAuthResult {
  profile: Profile;
  tokens: TokenSet;
}

/** The callback's parameters: the query, or the form body of a `form_post` response. */
export function callbackParams(ctx: Context): URLSearchParams {
  if (ctx.req.method === "POST") {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(ctx.req.body ?? {})) {
      if (typeof value === "string") params.set(key, value);
    }
    return params;
  }
  return new URLSearchParams(ctx.req.url.search);
}

/** A provider's error code, safe to log: short, and only the characters error codes use. */
function errorCode(value: string): string {
  return value.slice(0, 64).replace(/[^\w.-]/g, "?");
}

/**
 * The error code (and TikTok-style `log_id`) of an error body, for the log line: OAuth's
 * `{ error: "code" }` or an API's `{ error: { code, log_id } }`. Never the description, which
 * a provider may fill with anything.
 */
function describeErrorBody(body: unknown): string {
  if (typeof body !== "object" || body === null) return "";
  const error = (body as { error?: unknown }).error;
  if (typeof error === "string") return ` (error=${errorCode(error)})`;
  if (typeof error === "object" && error !== null) {
    const { code, log_id } = error as { code?: unknown; log_id?: unknown };
    const parts = [
      typeof code === "string" ? `code=${errorCode(code)}` : "",
      typeof log_id === "string" ? `log_id=${errorCode(log_id)}` : "",
    ].filter(Boolean);
    return parts.length ? ` (${parts.join(" ")})` : "";
  }
  return "";
}

async function verifyChecks(
  ctx: Context,
  provider: OAuthInternalProvider,
  params: URLSearchParams,
) {
  const checks = new Set(provider.checks);
  if (checks.has("none")) return { verifier: undefined, nonce: undefined };
  if (checks.has("state") || proxyFor(ctx, provider)) {
    const expected = await useCheck(ctx, "state", provider.id);
    if (params.get("state") !== expected) {
      throw new InvalidCheck("The state parameter does not match its cookie");
    }
  }
  const verifier = checks.has("pkce") ? await useCheck(ctx, "pkce", provider.id) : undefined;
  const nonce = checks.has("nonce") ? await useCheck(ctx, "nonce", provider.id) : undefined;
  return { verifier, nonce };
}

async function userinfo(
  provider: OAuthInternalProvider,
  as: oauth.AuthorizationServer,
  tokens: oauth.TokenEndpointResponse,
): Promise<Profile> {
  const base = endpointUrl(provider.userinfo) ?? as.userinfo_endpoint;
  if (!base) throw new OAuthCallbackError(`Provider "${provider.id}" has no userinfo endpoint`);
  try {
    requireSecureTransport(base, "userinfo endpoint");
  } catch (cause) {
    throw new OAuthCallbackError(`Provider "${provider.id}": ${(cause as Error).message}`);
  }
  const url = new URL(base);
  for (const [key, value] of Object.entries(endpointParams(provider.userinfo, provider))) {
    url.searchParams.set(key, value);
  }
  const response = await (provider.fetch ?? fetch)(url, {
    headers: { accept: "application/json", authorization: `Bearer ${tokens.access_token}` },
    redirect: "manual",
  });
  const body: unknown = await response.json().catch(() => undefined);
  if (!response.ok) {
    throw new OAuthCallbackError(
      `The userinfo endpoint answered HTTP ${response.status}${describeErrorBody(body)}`,
    );
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new OAuthCallbackError(
      "The userinfo endpoint answered something that is not a JSON object",
    );
  }
  return body as Profile;
}

/**
 * A plain OAuth provider without an issuer has nothing to check an ID token's `iss` against:
 * such a token is dropped rather than failing the sign-in or being stored unverified.
 */
async function withoutUnverifiableIdToken(
  provider: OAuthInternalProvider,
  response: Response,
): Promise<Response> {
  if (provider.type !== "oauth" || provider.issuer || !response.ok) return response;
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return new Response(text, { status: response.status, headers: response.headers });
  }
  if (typeof body === "object" && body !== null && "id_token" in body) {
    const { id_token: _dropped, ...rest } = body as Record<string, unknown>;
    body = rest;
  }
  return new Response(JSON.stringify(body), { status: response.status, headers: response.headers });
}

/**
 * The `user` field of a form_post callback, parsed: Apple sends the user's name there, as JSON,
 * on the first sign-in only. It is unsigned (only the ID token vouches for anything), so it is
 * handed to `profile()` as `profile.user` and never overrides a claim.
 */
function formPostUser(ctx: Context, params: URLSearchParams): Record<string, unknown> | undefined {
  const raw = ctx.req.method === "POST" ? params.get("user") : null;
  if (!raw || raw.length > 4096) return undefined;
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

async function exchange(
  ctx: Context,
  provider: OAuthInternalProvider,
  params: URLSearchParams,
): Promise<OAuthResult> {
  const { verifier, nonce } = await verifyChecks(ctx, provider, params);
  const as = await authorizationServer(provider);
  const { client: c, auth } = client(provider);
  // Without a configured issuer there is nothing to check an RFC 9207 `iss` against.
  if (!provider.issuer) params.delete("iss");
  const validated = oauth.validateAuthResponse(as, c, params, oauth.skipStateCheck);
  const tokenParams = endpointParams(provider.token, provider);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    c,
    auth,
    validated,
    redirectUri(ctx, provider),
    verifier ?? oauth.nopkce,
    {
      ...httpOptions(provider, as.token_endpoint),
      ...(Object.keys(tokenParams).length ? { additionalParameters: tokenParams } : {}),
    },
  );
  // A multi-tenant issuer: the ID token must name the template with its own tenant id.
  const checked = await forTenantToken(as, await withoutUnverifiableIdToken(provider, response));
  const tokens = await oauth.processAuthorizationCodeResponse(checked.as, c, checked.response, {
    expectedNonce: nonce ?? oauth.expectNoNonce,
    requireIdToken: provider.type === "oidc",
  });
  let profile: Profile;
  if (provider.type === "oidc" && provider.idToken !== false) {
    profile = { ...oauth.getValidatedIdTokenClaims(tokens) } as Profile;
  } else if (provider.type === "oidc") {
    const claims = oauth.getValidatedIdTokenClaims(tokens)!;
    const info = await oauth.userInfoRequest(
      as,
      c,
      tokens.access_token,
      httpOptions(provider, as.userinfo_endpoint),
    );
    profile = (await oauth.processUserInfoResponse(as, c, claims.sub, info)) as Profile;
  } else {
    profile = await userinfo(provider, as, tokens);
  }
  const named = formPostUser(ctx, params);
  if (named && profile.user === undefined) profile = { ...profile, user: named };
  const result: TokenSet = { ...tokens };
  if (typeof tokens.expires_in === "number") {
    result.expires_at = Math.floor(Date.now() / 1000) + tokens.expires_in;
  }
  return { profile, tokens: result };
}

/**
 * Runs the callback protocol. A provider `error` is an `OAuthCallbackError`; a failed check an
 * `InvalidCheck`; any failure of the exchange itself (network, HTTP status, token or ID-token
 * validation) an `OAuthCallbackError` whose cause says why.
 */
export async function runOAuthCallback(
  ctx: Context,
  provider: OAuthInternalProvider,
): Promise<OAuthResult> {
  const params = callbackParams(ctx);
  const error = params.get("error");
  if (error !== null) {
    // The checks are spent either way.
    await verifyChecks(ctx, provider, params).catch(() => {});
    throw new OAuthCallbackError(`Provider "${provider.id}" answered error=${errorCode(error)}`);
  }
  try {
    return await exchange(ctx, provider, params);
  } catch (cause) {
    if (cause instanceof AuthError) throw cause;
    const code = cause instanceof oauth.ResponseBodyError ? ` error=${errorCode(cause.error)}` : "";
    const detail =
      cause instanceof Error ? `${cause.name}: ${cause.message}${code}` : "unknown failure";
    throw new OAuthCallbackError(`The sign-in with "${provider.id}" failed (${detail})`, { cause });
  }
}
