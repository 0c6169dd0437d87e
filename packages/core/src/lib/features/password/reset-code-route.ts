/**
 * POST /reset-password/<password provider> with a code (providers with `resetCode`): the address,
 * the emailed code and the new password, typed on the page a request leads to. The answers are
 * the same whether or not the address has an account or an outstanding reset: a wrong code is a
 * wrong code. Each try is counted before it is checked (./reset-code.ts); the fifth wrong one
 * ends the code and its link.
 */
import type { Context } from "../../context.js";
import { randomUUID } from "../../crypto/hash.js";
import { normalizeEmail } from "../../email/normalize.js";
import { htmlResult } from "../../response.js";
import type { ResponseInternal } from "../../types/config.js";
import { logRefusal, policyOf, refusalJson, wantsJson } from "./answer.js";
import type { PasswordConfig } from "./options.js";
import { type ResetCodePageParams, renderResetCodePage } from "./pages-reset.js";
import { checkPassword } from "./policy.js";
import { countResetCodeTry, MAX_RESET_CODE_TRIES, normalizeResetCode } from "./reset-code.js";
import { completeReset } from "./reset-complete.js";
import { routeUrl, signInPage } from "./reset-request.js";
import {
  newGeneration,
  RESET_ROUTE,
  redeemReset,
  resetMaxAgeOf,
  resetStateOf,
} from "./reset-tokens.js";
import { passwordAccount, storeOf, writeGeneration } from "./store.js";

type PageState = Pick<ResetCodePageParams, "email" | "error" | "invalid">;

/** The page that takes a code: "check your email", then address, code and new password. */
export async function codePage(
  ctx: Context,
  provider: PasswordConfig,
  state: PageState,
  status = 200,
): Promise<ResponseInternal> {
  const [{ token }, callbackUrl] = await Promise.all([ctx.csrf(), ctx.callbackUrl()]);
  const html = renderResetCodePage({
    providerId: provider.id,
    action: routeUrl(ctx, RESET_ROUTE, provider),
    csrfToken: token,
    callbackUrl,
    signInUrl: signInPage(ctx),
    minLength: policyOf(provider).minLength,
    theme: ctx.config.theme,
    ...state,
  });
  return htmlResult(html, status);
}

const WRONG = "The code is wrong: check the email we sent, and the address.";
const SPENT = "This code cannot be used any more: ask for a new email.";

export async function resetWithCode(
  ctx: Context,
  provider: PasswordConfig,
  callbackUrl: string,
): Promise<ResponseInternal> {
  const body = ctx.req.body ?? {};
  const typed = typeof body.email === "string" ? body.email : "";
  const refuse = (error: string, message: string, invalid: PageState["invalid"]) => {
    if (wantsJson(ctx)) return refusalJson(ctx, error, message);
    logRefusal(ctx, error);
    return codePage(ctx, provider, { email: typed, error: message, invalid }, 400);
  };
  let address: string;
  try {
    address = normalizeEmail(typed);
  } catch {
    return refuse("InvalidEmail", "Enter a valid email address.", "email");
  }
  const checked = await checkPassword(body.password, policyOf(provider), {
    email: address,
    logger: ctx.config.logger,
  });
  if (!checked.ok) return refuse(checked.error, checked.message, "password");

  const user = await storeOf(ctx).getUserByEmail(address);
  const account = await passwordAccount(ctx, provider, user?.id ?? randomUUID());
  const bound = user?.emailVerified ? resetStateOf(account) : null;
  // Counted before anything is compared, for every address alike.
  const window = resetMaxAgeOf(provider) * 1000;
  const tries = await countResetCodeTry(ctx, provider, address, account.generation, window);
  if (tries > MAX_RESET_CODE_TRIES) return refuse("CodeUnusable", SPENT, "code");
  const code = normalizeResetCode(body.code);
  const spent =
    bound && code ? await redeemReset(ctx, provider, address, bound, "code", code) : null;
  if (spent === "used" && user) {
    return completeReset(ctx, provider, user, checked.password, callbackUrl);
  }
  if (spent === "expired") return refuse("CodeUnusable", SPENT, "code");
  if (tries < MAX_RESET_CODE_TRIES) return refuse("WrongCode", WRONG, "code");
  // The last try was wrong: a new generation ends this request's code and link.
  if (user && bound) await writeGeneration(ctx, provider, user.id, newGeneration());
  return refuse("CodeUnusable", SPENT, "code");
}
