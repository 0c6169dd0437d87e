/**
 * POST /signin/<oauth provider>: the redirect to the provider's authorization endpoint, with
 * the checks' cookies.
 */
import * as oauth from "oauth4webapi";
import { createState, sealCheck } from "../../checks.js";
import type { Context } from "../../context.js";
import { OAuthSignInError } from "../../errors.js";
import { endpointParams, type OAuthProvider } from "../../oauth/provider.js";
import { authorizationServer } from "../../oauth/server.js";
import { redirectResult } from "../../response.js";
import type { Cookie, ResponseInternal } from "../../types/config.js";
import type { InternalProvider } from "../../types/internal.js";

/** Parameters a sign-in request may not override: they carry the flow's security. */
const reserved = new Set([
  "response_type",
  "client_id",
  "redirect_uri",
  "state",
  "nonce",
  "code_challenge",
  "code_challenge_method",
  "callbackUrl",
]);

export type OAuthInternalProvider = InternalProvider & OAuthProvider;

/** Whether the provider answers with a cross-site form POST. */
export function isFormPost(provider: OAuthProvider): boolean {
  return endpointParams(provider.authorization, provider).response_mode === "form_post";
}

/** The redirect proxy in force for this provider, if any (never for form_post providers). */
export function proxyFor(ctx: Context, provider: OAuthProvider): string | undefined {
  const proxy = provider.redirectProxyUrl ?? ctx.config.redirectProxyUrl;
  return proxy && !isFormPost(provider) ? proxy.replace(/\/+$/, "") : undefined;
}

/** The `redirect_uri` registered at the provider: ours, or the proxy's. */
export function redirectUri(ctx: Context, provider: OAuthInternalProvider): string {
  const proxy = proxyFor(ctx, provider);
  return proxy ? `${proxy}/callback/${encodeURIComponent(provider.id)}` : provider.callbackUrl;
}

export async function oauthSignIn(
  ctx: Context,
  provider: OAuthInternalProvider,
): Promise<ResponseInternal> {
  const as = await authorizationServer(provider);
  if (!as.authorization_endpoint) {
    throw new OAuthSignInError(`Provider "${provider.id}" has no authorization endpoint`);
  }
  const url = new URL(as.authorization_endpoint);
  const params = url.searchParams;
  params.set("response_type", "code");
  params.set("client_id", provider.clientId);
  params.set("redirect_uri", redirectUri(ctx, provider));
  for (const [key, value] of Object.entries(endpointParams(provider.authorization, provider))) {
    params.set(key, value);
  }
  for (const [key, value] of Object.entries(ctx.req.query)) {
    if (!reserved.has(key)) params.set(key, value);
  }
  if (provider.type === "oidc" && !params.has("scope")) params.set("scope", "openid profile email");

  const formPost = isFormPost(provider);
  const checks = new Set(provider.checks);
  const proxy = proxyFor(ctx, provider);
  const cookies: Cookie[] = [];
  if (!checks.has("none")) {
    if (checks.has("state") || proxy) {
      const state = await createState(ctx, proxy ? provider.callbackUrl : undefined);
      params.set("state", state);
      cookies.push(await sealCheck(ctx, "state", state, provider.id, formPost));
    }
    if (checks.has("pkce")) {
      const verifier = oauth.generateRandomCodeVerifier();
      params.set("code_challenge", await oauth.calculatePKCECodeChallenge(verifier));
      params.set("code_challenge_method", "S256");
      cookies.push(await sealCheck(ctx, "pkce", verifier, provider.id, formPost));
    }
    if (checks.has("nonce")) {
      const nonce = oauth.generateRandomNonce();
      params.set("nonce", nonce);
      cookies.push(await sealCheck(ctx, "nonce", nonce, provider.id, formPost));
    }
  }
  // Resolve (and remember, in its cookie) where to go once the provider sends the user back.
  const callbackUrl = await ctx.callbackUrl();
  if (formPost) {
    // The callback is a cross-site POST: the callback-url cookie must be SameSite=None too.
    const { name, options } = ctx.cookieOptions.callbackUrl;
    const queued = ctx.setCookies.findIndex((c) => c.name === name);
    if (queued >= 0) ctx.setCookies.splice(queued, 1);
    cookies.push({
      name,
      value: callbackUrl,
      options: { ...options, sameSite: "none", secure: true },
    });
  }
  return { ...redirectResult(url.href), cookies };
}
