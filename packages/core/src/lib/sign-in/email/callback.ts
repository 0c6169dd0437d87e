/**
 * GET and POST /callback/<email provider>. By default a `GET` of the link only answers a page
 * with one button, and its `POST` (CSRF-checked) redeems the token: a mail scanner that opens the
 * link consumes nothing. With `confirm: false` the `GET` redeems it. A `POST` with `code` instead
 * of `token` redeems an emailed code (see `./email-code.ts`). Each token and code works once.
 */

import { requireCsrf } from "../../actions/csrf.js";
import type { Context } from "../../context.js";
import { randomUUID } from "../../crypto/hash.js";
import { OAuthAccountNotLinked, Verification } from "../../errors.js";
import {
  type AfterAddressProof,
  endSessionsOnAddressProof,
} from "../../features/sessions/address-proof.js";
import { announce } from "../../moments.js";
import { renderEmailConfirmPage } from "../../pages/index.js";
import { htmlResult, pageUrl, redirectResult } from "../../response.js";
import { completeSignIn, type Settled } from "../../sign-in.js";
import type { ResponseInternal } from "../../types/config.js";
import type {
  Adapter,
  AdapterAccount,
  AdapterUser,
  VerificationToken,
} from "../../types/models.js";
import { linkMayAdopt } from "../adopt.js";
import { forgetBinding, openBinding } from "./code.js";
import { type EmailInternalProvider, hashToken, tokenSecrets } from "./start.js";

/**
 * Redeems the token: one `useVerificationToken` per secret of the rotation list (and the list
 * joined with commas, as Auth.js hashed it), so links sent before a rotation keep working while
 * their secret stays in the list. The adapter deletes what it returns: each link works once.
 */
async function redeem(
  ctx: Context,
  provider: EmailInternalProvider,
  identifier: string,
  token: string,
): Promise<VerificationToken | null> {
  const adapter = ctx.config.adapter as Required<Adapter>;
  const secrets = tokenSecrets(ctx, provider);
  const candidates = secrets.length > 1 ? [...secrets, secrets.join(",")] : secrets;
  for (const secret of candidates) {
    const found = await adapter.useVerificationToken({
      identifier,
      token: await hashToken(token, secret),
    });
    if (found) return found;
  }
  return null;
}

/** Links the `email` account unless it is already linked (by this click or a concurrent one). */
async function linkOnce(
  ctx: Context,
  adapter: Required<Adapter>,
  user: AdapterUser,
  account: AdapterAccount,
  isNewUser: boolean,
): Promise<boolean> {
  const key = { provider: account.provider, providerAccountId: account.providerAccountId };
  if (await adapter.getUserByAccount(key)) return false;
  try {
    await adapter.linkAccount(account);
  } catch (error) {
    const owner = await adapter.getUserByAccount(key);
    if (owner?.id !== user.id) throw error;
    return false;
  }
  await announce(ctx, "accountLinked", { user, account, profile: user, isNewUser });
  return true;
}

/** The account this very link proves: this email provider's, for the address it was mailed to. */
const isLinkAccount = (account: AdapterAccount, providerId: string, address: string) =>
  account.type === "email" &&
  account.provider === providerId &&
  account.providerAccountId === address;

/**
 * The confirmation page a link opens: nothing is redeemed, no session is made. The token stays
 * out of any `Referer` the page could send.
 */
async function confirmPage(
  ctx: Context,
  provider: EmailInternalProvider,
): Promise<ResponseInternal> {
  const { token, email } = ctx.req.query;
  if (!token || !email) {
    throw new Verification("The sign-in link has no token or no email address");
  }
  const callbackUrl = await ctx.callbackUrl();
  const custom = ctx.config.pages.emailConfirm;
  if (custom) {
    const params = { provider: provider.id, token, email, callbackUrl };
    const result = redirectResult(pageUrl(ctx, custom, params));
    result.headers = { "Referrer-Policy": "no-referrer" };
    return result;
  }
  const { token: csrfToken } = await ctx.csrf();
  const page = renderEmailConfirmPage({
    action: provider.callbackUrl,
    csrfToken,
    token,
    email,
    callbackUrl,
    theme: ctx.config.theme,
  });
  const result = htmlResult(page);
  result.headers = { ...result.headers, "Referrer-Policy": "no-referrer" };
  return result;
}

/** A link redeemed in the browser that also holds this address's code spends the code too. */
async function spendBoundCode(
  ctx: Context,
  provider: EmailInternalProvider,
  identifier: string,
): Promise<void> {
  const binding = await openBinding(ctx, provider.id);
  if (!binding || binding.identifier !== identifier) return;
  forgetBinding(ctx);
  const adapter = ctx.config.adapter as Required<Adapter>;
  await adapter.useVerificationToken({ identifier, token: binding.codeHash });
}

export async function emailCallback(
  ctx: Context,
  provider: EmailInternalProvider,
): Promise<ResponseInternal> {
  const isPost = ctx.req.method === "POST";
  if (isPost) {
    await requireCsrf(ctx);
    const body = ctx.req.body ?? {};
    if (body.token === undefined && body.code !== undefined) {
      // A hostile callbackUrl is refused before the code is spent.
      const callbackUrl = await ctx.callbackUrl();
      const outcome = await (await import("./code-callback.js")).redeemCode(ctx, provider);
      if (!("identifier" in outcome)) return outcome;
      // Unless this post names where to go, the sign-in lands where it was headed when the code
      // was sent: the callback-url cookie may have been rewritten since (a prefetched page).
      const named = body.callbackUrl ?? ctx.req.query.callbackUrl;
      const landing = named ? callbackUrl : (outcome.callbackUrl ?? callbackUrl);
      return finishSignIn(ctx, provider, outcome.identifier, landing);
    }
  } else if (provider.confirm !== false) {
    return confirmPage(ctx, provider);
  }
  const input = isPost ? { ...ctx.req.query, ...ctx.req.body } : ctx.req.query;
  const { token, email } = input as { token?: unknown; email?: unknown };
  const callbackUrl = await ctx.callbackUrl();
  if (typeof token !== "string" || token === "" || typeof email !== "string" || email === "") {
    throw new Verification("The sign-in link has no token or no email address");
  }
  const found = await redeem(ctx, provider, email, token);
  if (!found) throw new Verification("The sign-in link is wrong or was already used");
  if (found.expires.valueOf() < Date.now()) throw new Verification("The sign-in link has expired");
  await spendBoundCode(ctx, provider, found.identifier);
  return finishSignIn(ctx, provider, found.identifier, callbackUrl);
}

/** Signs in as the owner of `identifier`, whose address a link or a code has just proven. */
async function finishSignIn(
  ctx: Context,
  provider: EmailInternalProvider,
  identifier: string,
  callbackUrl: string,
): Promise<ResponseInternal> {
  const adapter = ctx.config.adapter as Required<Adapter>;
  const existing = await adapter.getUserByEmail(identifier);
  if (
    existing &&
    !existing.emailVerified &&
    !(await linkMayAdopt(ctx, existing, (a) => isLinkAccount(a, provider.id, identifier)))
  ) {
    throw new OAuthAccountNotLinked(
      "The email link is for an unverified user who has, or may have, other ways to sign in; sign in with one of them first",
    );
  }
  const account: AdapterAccount = {
    providerAccountId: identifier,
    userId: existing?.id ?? "",
    type: "email",
    provider: provider.id,
  };
  const candidate: AdapterUser = existing ?? {
    id: randomUUID(),
    email: identifier,
    emailVerified: null,
  };
  return completeSignIn(ctx, {
    provider,
    callbackUrl,
    gate: { user: candidate, account: { ...account, userId: candidate.id } },
    settle: () => settle(ctx, provider, adapter, existing, candidate, account),
  });
}

/** After the gate: proves the address on the user (or creates it) and links this account. */
async function settle(
  ctx: Context,
  provider: EmailInternalProvider,
  adapter: Required<Adapter>,
  existing: AdapterUser | null,
  candidate: AdapterUser,
  account: AdapterAccount,
): Promise<Settled> {
  const now = new Date();
  let user: AdapterUser;
  let isNewUser = false;
  let proven: AfterAddressProof = {};
  if (existing) {
    user = existing;
    if (!existing.emailVerified) {
      // Whoever held the address unproven may be signed in as this user: not any more.
      proven = await endSessionsOnAddressProof(ctx, existing);
      user = await adapter.updateUser({ id: existing.id, emailVerified: now });
      await announce(ctx, "userUpdated", { user });
      await announce(ctx, "emailVerified", { user, provider });
    }
  } else {
    try {
      user = await adapter.createUser({ ...candidate, emailVerified: now });
      isNewUser = true;
      await announce(ctx, "userCreated", { user });
      await announce(ctx, "emailVerified", { user, provider });
    } catch (error) {
      // Another link for the same address won the race (mail scanners open links early).
      const winner = await adapter.getUserByEmail(account.providerAccountId);
      if (!winner) throw error;
      user = winner;
    }
  }
  account.userId = user.id;
  await linkOnce(ctx, adapter, user, account, isNewUser);
  return { user, account, isNewUser, ...proven };
}
