/**
 * The federated part of a sign-out: when the session signed in with an OpenID provider that
 * advertises `end_session_endpoint`, the browser goes on to end the session there too.
 */
import { capabilitiesOf } from "../../capabilities.js";
import type { Context } from "../../context.js";
import type { SignOutTarget } from "../../feature.js";
import type { OAuthProvider } from "../../oauth/provider.js";
import { authorizationServer } from "../../oauth/server.js";
import { identifySession } from "../../session/index.js";
import { PROVIDER_TOKENS_CLAIM } from "../provider-tokens/claim.js";

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
export async function federatedTarget(ctx: Context): Promise<SignOutTarget | undefined> {
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
  const { listAccounts } = capabilitiesOf(ctx.config);
  if (listAccounts) {
    const accounts = await listAccounts(ref.userId);
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
