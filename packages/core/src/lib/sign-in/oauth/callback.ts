/**
 * GET (or form_post POST) /callback/<oauth provider>: finish an OAuth or OIDC sign-in.
 */

import { readState } from "../../checks.js";
import type { Context } from "../../context.js";
import { AuthError, OAuthAccountNotLinked, OAuthProfileParseError } from "../../errors.js";
import { endSessionsOnAddressProof } from "../../features/sessions/address-proof.js";
import { announce } from "../../moments.js";
import { redirectResult } from "../../response.js";
import { completeSignIn } from "../../sign-in.js";
import type { ResponseInternal } from "../../types/config.js";
import type {
  Account,
  Adapter,
  AdapterAccountType,
  AdapterUser,
  Profile,
  User,
} from "../../types/models.js";
import type { TokenSet } from "../../types/providers.js";
import { type Adopted, type EmailClaim, emailClaim, resolveUser } from "../../users.js";
import { providerMayAdopt } from "../adopt.js";
import { callbackParams, runOAuthCallback } from "./flow.js";
import { proxyTarget } from "./proxy.js";
import { type OAuthInternalProvider, proxyFor } from "./start.js";

const str = (value: unknown) =>
  typeof value === "string" && value !== ""
    ? value
    : typeof value === "number"
      ? String(value)
      : undefined;

/** The profile mapping used when a provider sets none: the OpenID Connect standard claims. */
function defaultProfile(profile: Profile): User {
  return {
    id: str(profile.sub) ?? str(profile.id),
    name: str(profile.name) ?? str(profile.nickname) ?? str(profile.preferred_username) ?? null,
    email: str(profile.email) ?? null,
    image: str(profile.picture) ?? null,
  };
}

const storedTokenFields = [
  "access_token",
  "id_token",
  "refresh_token",
  "expires_at",
  "scope",
  "token_type",
  "session_state",
  "authorization_details",
] as const;

/** The token fields stored on the account when a provider sets no `account()`. */
function defaultAccount(tokens: TokenSet): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of storedTokenFields) if (tokens[key] !== undefined) out[key] = tokens[key];
  return out;
}

/**
 * Takes over a user that holds the address this provider vouches for without having proven it,
 * when nothing but an unconfirmed sign-up made it (../adopt.ts): whoever made that sign-up is
 * signed out, the address is proven, and the name and picture become the provider's (the
 * sign-up's were chosen by whoever typed the address). A feature that holds an unconfirmed way
 * in (a pending password) voids it when it hears `emailVerified`.
 */
async function adoptUnproven(
  ctx: Context,
  provider: OAuthInternalProvider,
  squatted: AdapterUser,
  profileUser: User,
): Promise<Adopted | undefined> {
  if (!(await providerMayAdopt(ctx, squatted))) return undefined;
  const proven = await endSessionsOnAddressProof(ctx, squatted);
  const user = await (ctx.config.adapter as Required<Adapter>).updateUser({
    id: squatted.id,
    emailVerified: new Date(),
    name: profileUser.name ?? null,
    image: profileUser.image ?? null,
  });
  await announce(ctx, "userUpdated", { user });
  await announce(ctx, "emailVerified", { user, provider });
  return { user, ...proven };
}

/**
 * On the redirect proxy: a callback whose state names another deployment is sent on to it,
 * untouched. Returns undefined when this deployment should handle the callback itself.
 */
async function forwardFromProxy(
  ctx: Context,
  provider: OAuthInternalProvider,
): Promise<ResponseInternal | undefined> {
  const proxy = proxyFor(ctx, provider);
  if (!proxy || new URL(proxy).origin !== ctx.origin) return undefined;
  const params = callbackParams(ctx);
  const state = params.get("state");
  if (!state) return undefined;
  const { origin } = await readState(ctx, state);
  if (!origin) return undefined;
  const target = proxyTarget(
    ctx.origin,
    ctx.config.redirectProxyOrigins,
    provider.id,
    origin,
    params,
  );
  return target === undefined ? undefined : redirectResult(target);
}

async function mapProfile(provider: OAuthInternalProvider, profile: Profile, tokens: TokenSet) {
  let user: User;
  try {
    user = await (provider.profile ?? defaultProfile)(profile, tokens);
  } catch (cause) {
    if (cause instanceof AuthError) throw cause;
    throw new OAuthProfileParseError(`profile() of provider "${provider.id}" threw`, { cause });
  }
  const id = str(user?.id);
  if (!id) {
    throw new OAuthProfileParseError(`profile() of provider "${provider.id}" returned no id`);
  }
  const email = typeof user.email === "string" && user.email ? user.email.toLowerCase() : null;
  return { ...user, id, email };
}

/**
 * The sign-in's claim on an address (docs/security.md): the mapped email, when the provider
 * says it came from its email field, it is an address, and the profile does not deny it.
 */
function claimOf(provider: OAuthInternalProvider, profile: Profile, user: User): EmailClaim {
  let fromEmailField = true;
  try {
    if (provider.emailIsAddress) fromEmailField = provider.emailIsAddress(profile, user) === true;
  } catch (cause) {
    throw new OAuthProfileParseError(`emailIsAddress() of provider "${provider.id}" threw`, {
      cause,
    });
  }
  return emailClaim(user.email, profile, fromEmailField);
}

/**
 * Without an adapter the user id (and `token.sub`) is the account id scoped by the provider,
 * `<providerId>:<providerAccountId>`: stable across sign-ins, and two providers' accounts with
 * the same id stay two identities. Provider ids cannot contain `:`, so the scoping is one-to-one.
 */
function scopedUserId(providerId: string, providerAccountId: string): string {
  return `${providerId}:${providerAccountId}`;
}

export async function oauthCallback(
  ctx: Context,
  provider: OAuthInternalProvider,
): Promise<ResponseInternal> {
  const forwarded = await forwardFromProxy(ctx, provider);
  if (forwarded) return forwarded;

  const callbackUrl = await ctx.callbackUrl();
  const { profile, tokens } = await runOAuthCallback(ctx, provider);
  const profileUser = await mapProfile(provider, profile, tokens);
  const identity = {
    provider: provider.id,
    type: provider.type,
    providerAccountId: profileUser.id,
  };
  // Callbacks and events see the provider's whole token response; the adapter stores only
  // what `account()` keeps.
  const account: Account & { type: AdapterAccountType } = { ...tokens, ...identity };
  const stored: Account & { type: AdapterAccountType } = {
    ...(provider.account ?? defaultAccount)(tokens),
    ...identity,
  };

  const adapter = ctx.config.adapter;
  if (!adapter) {
    const user = { ...profileUser, id: scopedUserId(provider.id, profileUser.id) };
    return completeSignIn(ctx, {
      provider,
      callbackUrl,
      gate: { user, account, profile },
      settle: () => ({ user, account, profile, isNewUser: false }),
    });
  }
  const owner = await adapter.getUserByAccount!({
    provider: provider.id,
    providerAccountId: profileUser.id,
  });
  return completeSignIn(ctx, {
    provider,
    callbackUrl,
    gate: { user: owner ?? profileUser, account, profile },
    knownUserId: owner?.id,
    settle: async () => {
      const { user, isNewUser, sessionId } = await resolveUser(ctx, {
        user: profileUser,
        account: stored,
        profile,
        claim: claimOf(provider, profile, profileUser),
        allowDangerousEmailAccountLinking: provider.allowDangerousEmailAccountLinking,
        notLinked: (message) => new OAuthAccountNotLinked(message),
        owner,
        adoptUnproven: (squatted) => adoptUnproven(ctx, provider, squatted, profileUser),
      });
      return { user, account, profile, isNewUser, ...(sessionId ? { sessionId } : {}) };
    },
  });
}
