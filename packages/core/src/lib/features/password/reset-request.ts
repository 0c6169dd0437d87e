/**
 * GET and POST /forgot-password/<password provider>: asking for a reset.
 *
 * The answer is the same for every address (status, body, cookies), and so is the work behind it:
 * the same two adapter reads (the user of the address, the password account of that user or of an
 * id nobody has), the same keyed hashes, and one email. What the email says depends on the
 * address, and only its owner reads it:
 *
 * - an account with a proven address and a password: the reset link (./reset-tokens.ts), which
 *   ends every older one;
 * - an account whose address was never proven: the link that lets the address's owner confirm
 *   it by choosing a password (the verification link of a repeated sign-up, ./verify.ts), when
 *   the owner may take the account over (./adopt.ts);
 * - no account, or one without a password (or that the owner may not take over): a mail saying
 *   there is nothing to reset, with the sign-in page.
 */
import { requireCsrf } from "../../actions/csrf.js";
import type { Context } from "../../context.js";
import { randomUUID } from "../../crypto/hash.js";
import { normalizeEmail } from "../../email/normalize.js";
import { htmlResult, jsonResult, noStore, pageUrl, redirectResult } from "../../response.js";
import type { ResponseInternal } from "../../types/config.js";
import type { AdapterUser } from "../../types/models.js";
import { limitClient, limitEmail } from "../rate-limit/index.js";
import { recordSecurityEvent } from "../security-log/log.js";
import { mayAdopt } from "./adopt.js";
import { logRefusal, refusalJson, wantsJson } from "./answer.js";
import { sendPasswordEmail } from "./mail.js";
import type { PasswordConfig } from "./options.js";
import { renderForgotPage } from "./pages-reset.js";
import { formatResetCode, generateResetCode } from "./reset-code.js";
import { createReset, decoyReset, RESET_ROUTE, resetStateOf } from "./reset-tokens.js";
import { passwordAccount, storeOf } from "./store.js";
import { createLink, dropLink } from "./tokens.js";

/** The JSON answer of every accepted reset request. */
export const RESET_SENT = {
  status: "resetSent",
  message: "If an account uses this address, we sent it a link to choose a new password.",
} as const;

/** The route a request leads to. */
export const FORGOT_ROUTE = "forgot-password";

/** The URL of one of the provider's password routes, with `params`. */
export function routeUrl(
  ctx: Context,
  route: string,
  provider: Pick<PasswordConfig, "id">,
  params: Record<string, string> = {},
): string {
  const url = new URL(`${ctx.authUrl}/${route}/${encodeURIComponent(provider.id)}`);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.href;
}

/** The sign-in page. */
export const signInPage = (ctx: Context) =>
  pageUrl(ctx, ctx.config.pages.signIn ?? `${ctx.config.basePath}/signin`, {});

const text = (value: unknown) => (typeof value === "string" ? value : undefined);

async function forgotPage(
  ctx: Context,
  provider: PasswordConfig,
  state: { email?: string; error?: string },
  status = 200,
): Promise<ResponseInternal> {
  const [{ token }, callbackUrl] = await Promise.all([ctx.csrf(), ctx.callbackUrl()]);
  const html = renderForgotPage({
    providerId: provider.id,
    action: routeUrl(ctx, FORGOT_ROUTE, provider),
    csrfToken: token,
    callbackUrl,
    signInUrl: signInPage(ctx),
    theme: ctx.config.theme,
    ...state,
  });
  return htmlResult(html, status);
}

export async function forgotPassword(
  ctx: Context,
  provider: PasswordConfig,
): Promise<ResponseInternal> {
  if (ctx.req.method !== "POST") {
    const email = text(ctx.req.query.email);
    return forgotPage(ctx, provider, email ? { email } : {});
  }
  await requireCsrf(ctx);
  const callbackUrl = await ctx.callbackUrl();
  await limitClient(ctx, "email");
  const typed = text(ctx.req.body?.email) ?? "";
  let address: string;
  try {
    address = normalizeEmail(typed);
  } catch {
    const message = "Enter a valid email address.";
    if (wantsJson(ctx)) return refusalJson(ctx, "InvalidEmail", message);
    logRefusal(ctx, "InvalidEmail");
    return forgotPage(ctx, provider, { email: typed, error: message }, 400);
  }
  await limitEmail(ctx, address);
  await requestReset(ctx, provider, address, callbackUrl);
  if (wantsJson(ctx)) return jsonResult(RESET_SENT, 200, noStore);
  // With codes, the page asks for one, for the address just typed (whoever holds it).
  const params: Record<string, string> = provider.resetCode ? { email: address } : {};
  return redirectResult(routeUrl(ctx, RESET_ROUTE, provider, params));
}

/** What a request for `address` does: see the module comment. */
async function requestReset(
  ctx: Context,
  provider: PasswordConfig,
  address: string,
  callbackUrl: string,
): Promise<void> {
  const user = await storeOf(ctx).getUserByEmail(address);
  // Read for an unknown address too (an id nobody has): the same two reads either way.
  const account = await passwordAccount(ctx, provider, user?.id ?? randomUUID());
  if (user && !user.emailVerified) return offerConfirmation(ctx, provider, user, address);
  const state = user ? resetStateOf(account) : null;
  const withCode = provider.resetCode === true;
  if (!user || !state) {
    await decoyReset(ctx, provider, address, withCode);
    return nothingToReset(ctx, provider, address);
  }
  const code = withCode ? generateResetCode() : undefined;
  const reset = await createReset(ctx, provider, user.id, address, state.stored, code);
  const url = routeUrl(ctx, RESET_ROUTE, provider, {
    token: reset.token,
    email: address,
    callbackUrl,
  });
  await sendPasswordEmail(ctx, provider, {
    kind: "resetPassword",
    to: address,
    url,
    expires: reset.expires,
    ...(reset.code ? { code: formatResetCode(reset.code) } : {}),
  });
  await recordSecurityEvent(ctx, {
    type: "passwordResetRequested",
    userId: user.id,
    provider: provider.id,
    providerType: "password",
  });
}

function nothingToReset(ctx: Context, provider: PasswordConfig, address: string): Promise<void> {
  return sendPasswordEmail(ctx, provider, {
    kind: "resetUnavailable",
    to: address,
    url: signInPage(ctx),
  });
}

/**
 * The address's user never proved it: the owner may claim it by choosing a password through the
 * verification link (as after a repeated sign-up), unless the user holds another way in.
 */
async function offerConfirmation(
  ctx: Context,
  provider: PasswordConfig,
  user: AdapterUser,
  address: string,
): Promise<void> {
  if (!(await mayAdopt(ctx, provider, user))) return nothingToReset(ctx, provider, address);
  const callbackUrl = await ctx.callbackUrl();
  const link = await createLink(ctx, provider, address, callbackUrl);
  try {
    await sendPasswordEmail(ctx, provider, {
      kind: "resetUnconfirmed",
      to: address,
      url: link.url,
      expires: link.expires,
    });
  } catch (error) {
    await dropLink(ctx, provider, address, link);
    throw error;
  }
}
