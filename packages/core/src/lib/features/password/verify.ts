/**
 * GET and POST /verify-email/<password provider>: what a verification link does.
 *
 * - Without a token, GET answers the "check your email" page.
 * - A GET of the link changes nothing (a mail scanner that opens it spends nothing): it answers a
 *   page whose form POSTs the token back.
 * - In the browser that signed up (./binding.ts: it holds the cookie naming this link and the
 *   password stored now), the POST confirms the address, makes the pending password the
 *   account's, and signs in.
 * - Anywhere else the link cannot vouch for the password chosen at sign-up, which may be a
 *   stranger's: the page asks the address's owner for a password of their own, and its POST
 *   replaces the sign-up password, ends every session of the user, confirms the address and
 *   signs in. So a link followed by its rightful owner never hands an account to whoever signed
 *   up with their address.
 *
 * Each link works once: `useVerificationToken` returns and deletes its row in one step.
 */
import { requireCsrf } from "../../actions/csrf.js";
import type { Context } from "../../context.js";
import { hashPassword } from "../../crypto/password.js";
import { normalizeEmail } from "../../email/normalize.js";
import { OAuthAccountNotLinked, Verification } from "../../errors.js";
import { announce } from "../../moments.js";
import { htmlResult } from "../../response.js";
import { completeSignIn, type Settled } from "../../sign-in.js";
import type { ResponseInternal } from "../../types/config.js";
import type { AdapterUser } from "../../types/models.js";
import { mayAdopt } from "./adopt.js";
import { logRefusal, policyOf, refusalJson, wantsJson } from "./answer.js";
import { type Binding, bindsLink, bindsPassword, forgetBinding, openBinding } from "./binding.js";
import type { PasswordConfig } from "./options.js";
import { renderConfirmPage, renderSecurePage, renderVerifyPendingPage } from "./pages.js";
import { checkPassword } from "./policy.js";
import { endEverySession } from "./sessions.js";
import { publicAccount, replaceHash, storedPassword, storeOf } from "./store.js";
import { candidateHashes, redeemLink, verifyUrl } from "./tokens.js";

const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);

/** The link's address, normalised; a malformed one is a broken link. */
function addressOf(email: string): string {
  try {
    return normalizeEmail(email);
  } catch {
    throw new Verification("The link's email address is not an address");
  }
}

/** A page a link opens: no caching, and the token kept out of any `Referer`. */
function linkPage(html: string, status = 200): ResponseInternal {
  const result = htmlResult(html, status);
  result.headers = { ...result.headers, "Referrer-Policy": "no-referrer" };
  return result;
}

/**
 * Whether this browser signed up with this link and the password stored now: it holds the
 * binding of the link, the user's address is still unproven, and the binding names the pending
 * password the account holds. The user, when the binding names the link.
 */
async function boundTo(
  ctx: Context,
  provider: PasswordConfig,
  address: string,
  token: string,
): Promise<{ binding: Binding; user: AdapterUser; stored: string } | undefined> {
  const binding = await openBinding(ctx, provider.id);
  if (!binding || !bindsLink(binding, await candidateHashes(ctx, provider, address, token))) return;
  const user = await storeOf(ctx).getUserByEmail(address);
  if (!user || user.emailVerified) return;
  const stored = await storedPassword(ctx, provider, user.id);
  if (!stored?.pending || !(await bindsPassword(ctx, binding, stored.value))) return;
  return { binding, user, stored: stored.value };
}

interface LinkState {
  provider: PasswordConfig;
  token: string;
  address: string;
  callbackUrl: string;
}

async function securePage(ctx: Context, state: LinkState, error?: string, status = 200) {
  const { token: csrfToken } = await ctx.csrf();
  const html = renderSecurePage({
    providerId: state.provider.id,
    action: verifyUrl(ctx, state.provider),
    csrfToken,
    token: state.token,
    email: state.address,
    callbackUrl: state.callbackUrl,
    minLength: policyOf(state.provider).minLength,
    theme: ctx.config.theme,
    ...(error ? { error } : {}),
  });
  return linkPage(html, status);
}

export async function verifyEmail(
  ctx: Context,
  provider: PasswordConfig,
): Promise<ResponseInternal> {
  if (ctx.req.method !== "POST") return opened(ctx, provider);
  await requireCsrf(ctx);
  const callbackUrl = await ctx.callbackUrl();
  const body = ctx.req.body ?? {};
  const token = text(body.token);
  const email = text(body.email);
  if (!token || !email) throw new Verification("The link has no token or no email address");
  const state: LinkState = { provider, token, address: addressOf(email), callbackUrl };
  if (body.password !== undefined) return secure(ctx, state, body.password);
  const bound = await boundTo(ctx, provider, state.address, token);
  if (bound) return confirm(ctx, state, bound.user, bound.stored);
  // Another browser, or the password changed since this browser signed up: nothing is spent.
  const message =
    "Choose a password to confirm this address: the link was opened in another browser than the one that signed up.";
  if (wantsJson(ctx)) return refusalJson(ctx, "PasswordRequired", message);
  return securePage(ctx, state);
}

/** GET: the pending page, or the page the link opens. Nothing is read from the link's row. */
async function opened(ctx: Context, provider: PasswordConfig): Promise<ResponseInternal> {
  const { token, email } = ctx.req.query;
  if (!token || !email) {
    return htmlResult(renderVerifyPendingPage({ siteUrl: ctx.origin, theme: ctx.config.theme }));
  }
  const callbackUrl = await ctx.callbackUrl();
  const state: LinkState = { provider, token, address: addressOf(email), callbackUrl };
  if (!(await boundTo(ctx, provider, state.address, token))) return securePage(ctx, state);
  const { token: csrfToken } = await ctx.csrf();
  const html = renderConfirmPage({
    providerId: provider.id,
    action: verifyUrl(ctx, provider),
    csrfToken,
    token,
    email: state.address,
    callbackUrl,
    theme: ctx.config.theme,
  });
  return linkPage(html);
}

/** Spends the link: a wrong, used or expired one is a `Verification` error. */
async function spend(ctx: Context, state: LinkState): Promise<void> {
  const found = await redeemLink(ctx, state.provider, state.address, state.token);
  if (!found) throw new Verification("The link is wrong or was already used");
  if (found.expires.valueOf() < Date.now()) throw new Verification("The link has expired");
}

/** Marks the address proven and tells the listeners. */
async function prove(ctx: Context, provider: PasswordConfig, user: AdapterUser) {
  const verified = await storeOf(ctx).updateUser({ id: user.id, emailVerified: new Date() });
  await announce(ctx, "userUpdated", { user: verified });
  await announce(ctx, "emailVerified", {
    user: verified,
    provider: { id: provider.id, type: "password" },
  });
  return verified;
}

/** The browser that signed up: the address is proven, the pending password becomes the account's. */
async function confirm(
  ctx: Context,
  state: LinkState,
  user: AdapterUser,
  stored: string,
): Promise<ResponseInternal> {
  const { provider, callbackUrl } = state;
  await spend(ctx, state);
  forgetBinding(ctx);
  const account = publicAccount(provider, user.id);
  return completeSignIn(ctx, {
    provider,
    callbackUrl,
    gate: { user, account },
    knownUserId: user.id,
    settle: async (): Promise<Settled> => {
      // Checked again now that the link is spent: the password the binding names is still there.
      const now = await storedPassword(ctx, provider, user.id);
      if (now?.value !== stored || !now.pending) {
        throw new Verification("The account's password changed since the link was opened");
      }
      await replaceHash(ctx, provider, user.id, now.hash);
      const verified = await prove(ctx, provider, user);
      return { user: verified, account, isNewUser: true };
    },
  });
}

/**
 * Any browser: the address's owner chooses a password, which replaces the one chosen at sign-up.
 * Every session of the user ends, the address is proven, and the owner is signed in.
 */
async function secure(
  ctx: Context,
  state: LinkState,
  password: unknown,
): Promise<ResponseInternal> {
  const { provider, address, callbackUrl } = state;
  const checked = await checkPassword(password, policyOf(provider), {
    email: address,
    logger: ctx.config.logger,
  });
  if (!checked.ok) {
    if (wantsJson(ctx)) return refusalJson(ctx, checked.error, checked.message);
    logRefusal(ctx, checked.error);
    return securePage(ctx, state, checked.message, 400);
  }
  // Spent first: without the link's token nothing below runs, so the answers tell a request
  // without it nothing about the address.
  await spend(ctx, state);
  const user = await storeOf(ctx).getUserByEmail(address);
  if (!user) throw new Verification("The link's address has no account any more");
  if (user.emailVerified) throw new Verification("The address is already confirmed");
  if (!(await mayAdopt(ctx, provider, user))) {
    throw new OAuthAccountNotLinked(
      "The address belongs to a user with other ways to sign in; sign in with one of them first",
    );
  }
  const hash = await hashPassword(checked.password, provider.hash);
  forgetBinding(ctx);
  const account = publicAccount(provider, user.id);
  return completeSignIn(ctx, {
    provider,
    callbackUrl,
    gate: { user, account },
    knownUserId: user.id,
    settle: async (): Promise<Settled> => {
      // Whoever chose the sign-up password may be signed in (requireEmailVerification: false).
      const ended = await endEverySession(ctx, user.id, "accountSecured");
      await replaceHash(ctx, provider, user.id, hash);
      const verified = await prove(ctx, provider, user);
      return { user: verified, account, isNewUser: false, ...ended };
    },
  });
}
