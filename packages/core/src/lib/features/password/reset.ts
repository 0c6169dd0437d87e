/**
 * GET and POST /reset-password/<password provider>: what a reset link does.
 *
 * - Without a token, GET answers the "check your email" page a request leads to (with
 *   `resetCode`, the form that takes the emailed code instead: ./reset-code-route.ts).
 * - A GET of the link changes nothing (a mail scanner that opens it spends nothing): it answers
 *   the form that chooses the new password, which POSTs the token back.
 * - The POST checks the new password against the policy first (a refusal spends nothing), then
 *   spends the token against the account as it is now (./reset-tokens.ts: a token made before a
 *   newer request or a password change matches nothing); then ./reset-complete.ts stores the new
 *   password, ends every session of the user, records `passwordReset`, tells the address, and
 *   signs this browser in.
 */
import { requireCsrf } from "../../actions/csrf.js";
import type { Context } from "../../context.js";
import { randomUUID } from "../../crypto/hash.js";
import { normalizeEmail } from "../../email/normalize.js";
import { Verification } from "../../errors.js";
import { htmlResult } from "../../response.js";
import type { ResponseInternal } from "../../types/config.js";
import { logRefusal, policyOf, refusalJson, wantsJson } from "./answer.js";
import type { PasswordConfig } from "./options.js";
import { renderResetPage, renderResetSentPage } from "./pages-reset.js";
import { checkPassword } from "./policy.js";
import { codePage, resetWithCode } from "./reset-code-route.js";
import { completeReset } from "./reset-complete.js";
import { routeUrl, signInPage } from "./reset-request.js";
import { RESET_ROUTE, redeemReset, resetStateOf } from "./reset-tokens.js";
import { passwordAccount, storeOf } from "./store.js";

const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);

/** The link's address, normalised; a malformed one is a broken link. */
function addressOf(email: string): string {
  try {
    return normalizeEmail(email);
  } catch {
    throw new Verification("The link's email address is not an address");
  }
}

interface LinkState {
  provider: PasswordConfig;
  token: string;
  address: string;
  callbackUrl: string;
}

/** The form the link opens: no caching, and the token kept out of any `Referer`. */
async function resetPage(
  ctx: Context,
  state: LinkState,
  error?: string,
  status = 200,
): Promise<ResponseInternal> {
  const { token: csrfToken } = await ctx.csrf();
  const html = renderResetPage({
    providerId: state.provider.id,
    action: routeUrl(ctx, RESET_ROUTE, state.provider),
    csrfToken,
    token: state.token,
    email: state.address,
    callbackUrl: state.callbackUrl,
    minLength: policyOf(state.provider).minLength,
    theme: ctx.config.theme,
    ...(error ? { error } : {}),
  });
  const result = htmlResult(html, status);
  result.headers = { ...result.headers, "Referrer-Policy": "no-referrer" };
  return result;
}

export async function resetPassword(
  ctx: Context,
  provider: PasswordConfig,
): Promise<ResponseInternal> {
  if (ctx.req.method !== "POST") {
    const { token, email } = ctx.req.query;
    if (!token || !email) {
      if (provider.resetCode) return codePage(ctx, provider, email ? { email } : {});
      return htmlResult(
        renderResetSentPage({ signInUrl: signInPage(ctx), theme: ctx.config.theme }),
      );
    }
    const callbackUrl = await ctx.callbackUrl();
    return resetPage(ctx, { provider, token, address: addressOf(email), callbackUrl });
  }
  await requireCsrf(ctx);
  const callbackUrl = await ctx.callbackUrl();
  const body = ctx.req.body ?? {};
  if (provider.resetCode && body.token === undefined && body.code !== undefined) {
    return resetWithCode(ctx, provider, callbackUrl);
  }
  const token = text(body.token);
  const email = text(body.email);
  if (!token || !email) throw new Verification("The link has no token or no email address");
  const state: LinkState = { provider, token, address: addressOf(email), callbackUrl };
  const checked = await checkPassword(body.password, policyOf(provider), {
    email: state.address,
    logger: ctx.config.logger,
  });
  if (!checked.ok) {
    if (wantsJson(ctx)) return refusalJson(ctx, checked.error, checked.message);
    logRefusal(ctx, checked.error);
    return resetPage(ctx, state, checked.message, 400);
  }
  return reset(ctx, state, checked.password);
}

/** Spends the link's token, then sets `password` (./reset-complete.ts). */
async function reset(ctx: Context, state: LinkState, password: string): Promise<ResponseInternal> {
  const { provider, address, callbackUrl } = state;
  const user = await storeOf(ctx).getUserByEmail(address);
  const account = await passwordAccount(ctx, provider, user?.id ?? randomUUID());
  const bound = user?.emailVerified ? resetStateOf(account) : null;
  const spent = bound
    ? await redeemReset(ctx, provider, address, bound, "link", state.token)
    : null;
  if (spent === "expired") throw new Verification("The reset link has expired");
  if (spent !== "used" || !user) {
    throw new Verification("The reset link is wrong, used, or replaced by a newer one");
  }
  return completeReset(ctx, provider, user, password, callbackUrl);
}
