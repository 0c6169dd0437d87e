import type { Context } from "../context.js";
import { InvalidCallbackUrl, SessionStoreUnavailable } from "../errors.js";
import { PROVIDER_TOKENS_CLAIM } from "../features/provider-tokens/claim.js";
import { recordSecurityEvent, sessionSubject } from "../features/security-log/log.js";
import type { OAuthProvider } from "../oauth/provider.js";
import { authorizationServer } from "../oauth/server.js";
import { redirectResult } from "../response.js";
import { endSession, identifySession } from "../session/index.js";
import { StoreDeadline } from "../session/store-deadline.js";
import type { Cookie, ResponseInternal } from "../types/config.js";
import { requireCsrf } from "./csrf.js";
import { signOutPage } from "./pages.js";
import { signOutUnavailable } from "./signout-unavailable.js";

/**
 * GET /signout shows the confirmation page; POST /signout ends the session and redirects. When the
 * session store cannot end the session in time (retries included), the answer says so instead:
 * see {@link signOutUnavailable}.
 */
export async function signOut(ctx: Context): Promise<ResponseInternal> {
  if (ctx.req.method === "GET") return signOutPage(ctx);
  await requireCsrf(ctx);
  // Resolved before anything ends, but a refused URL is thrown only after the session is gone.
  const callback = ctx.callbackUrl().then(
    (url) => ({ url }),
    (error: unknown) => ({ error }),
  );
  // A provider that cannot be reached (discovery failing, or slow) must not keep the user signed
  // in here: the sign-out goes on locally, with one log line. Its own deadline, so a slow
  // provider leaves the store its full time.
  const federated = await new StoreDeadline()
    .race("the federated sign-out target", federatedTarget(ctx))
    .catch((error: unknown) => {
      ctx.config.logger.error(error as Error);
      return undefined;
    });
  // One deadline for every store call that ends the session: a store that never answers (a
  // half-open connection) must not hang the sign-out.
  const deadline = new StoreDeadline();
  // End the session first: a refused callbackUrl must not leave the user signed in. The
  // deletions are queued on the context, so they also ride on an error redirect.
  const subject = await deadline
    .race("the session's subject", sessionSubject(ctx))
    .catch(() => null);
  let ended: Cookie[];
  try {
    ended = await endSession(ctx, deadline);
  } catch (error) {
    if (!(error instanceof SessionStoreUnavailable)) throw error;
    const resolved = await callback;
    return signOutUnavailable(ctx, error, "url" in resolved ? resolved.url : undefined);
  }
  ctx.setCookies.push(...ended);
  if (subject) {
    // Recorded in the background once the deadline is spent: the session has ended either way.
    const recorded = recordSecurityEvent(ctx, { type: "signOut", ...subject });
    await deadline.race("the signOut security event", recorded).catch(() => {});
  }
  const resolved = await callback;
  if ("error" in resolved) throw resolved.error;
  if (!federated) return redirectResult(resolved.url);
  // The provider sends the user back to the callback URL, checked like every callback URL and
  // kept to this site's origin: the provider must not become an open redirect.
  if (new URL(resolved.url).origin !== ctx.origin) {
    throw new InvalidCallbackUrl("post_logout_redirect_uri must be on this site's origin");
  }
  const target = new URL(federated.endpoint);
  if (federated.idToken) target.searchParams.set("id_token_hint", federated.idToken);
  target.searchParams.set("post_logout_redirect_uri", resolved.url);
  target.searchParams.set("client_id", federated.clientId);
  return redirectResult(target.href);
}

function wantsFederated(ctx: Context, provider: OAuthProvider & { federatedLogout?: boolean }) {
  const asked = ctx.req.body?.federated;
  if (asked === true || asked === "true") return true;
  if (asked === false || asked === "false") return false;
  return provider.federatedLogout === true;
}

/**
 * The provider's end-session endpoint and the ID token for the hint, when this sign-out also ends
 * the session at the provider: the provider the session signed in with (the body's `provider`,
 * else the one OIDC provider of the configuration) is OIDC, advertises `end_session_endpoint`,
 * and the sign-out asks `federated: true` (or the provider's `federatedLogout` makes it the default).
 */
async function federatedTarget(
  ctx: Context,
): Promise<{ endpoint: string; idToken: string | undefined; clientId: string } | undefined> {
  const named = ctx.req.body?.provider;
  const oidc = [...ctx.config.providerById.values()].filter((p) => p.type === "oidc");
  const provider = (
    typeof named === "string"
      ? oidc.find((p) => p.id === named)
      : oidc.length === 1
        ? oidc[0]
        : undefined
  ) as (OAuthProvider & { federatedLogout?: boolean }) | undefined;
  if (!provider || !wantsFederated(ctx, provider)) return undefined;
  const ref = await identifySession(ctx);
  if (!ref) return undefined;
  const as = await authorizationServer(provider);
  const endpoint = as.end_session_endpoint;
  if (typeof endpoint !== "string") return undefined;
  let idToken: string | undefined;
  const adapter = ctx.config.adapter;
  if (adapter?.listAccountsByUserId) {
    const accounts = await adapter.listAccountsByUserId(ref.userId);
    const account = accounts.find((a) => a.provider === provider.id);
    if (typeof account?.id_token === "string") idToken = account.id_token;
  }
  // Without an adapter: the provider token set in the JWT, or an `id_token` claim the app's own
  // `jwt` callback kept.
  const set = ref.token?.[PROVIDER_TOKENS_CLAIM] as
    | { provider?: unknown; id_token?: unknown }
    | undefined;
  if (!idToken && set?.provider === provider.id && typeof set.id_token === "string") {
    idToken = set.id_token;
  }
  if (!idToken && typeof ref.token?.id_token === "string") idToken = ref.token.id_token;
  return { endpoint, idToken, clientId: provider.clientId ?? "" };
}
