/**
 * GET and POST /change-password/<password provider>: the signed-in user changes their password.
 *
 * The POST needs the current password, under the credentials rate limits of sign-in: a wrong one
 * counts as a failed sign-in of the account (its backoff, from this client or device), so a
 * stolen session cannot guess its way to the password. The new password meets the policy. Then
 * the new password is stored (which ends every reset link, ./reset-tokens.ts), every other session
 * of the user ends, this browser's goes on under a new id (./sessions.ts), the security log
 * records `passwordChanged` and the address is told.
 */
import { requireCsrf } from "../../actions/csrf.js";
import type { Context } from "../../context.js";
import { hashPassword, verifyPassword } from "../../crypto/password.js";
import { CallbackRouteError } from "../../errors.js";
import { announce } from "../../moments.js";
import { htmlResult, jsonResult, noStore, pageUrl, redirectResult } from "../../response.js";
import { identifySession, type SessionRef } from "../../session/index.js";
import type { ResponseInternal } from "../../types/config.js";
import type { AdapterUser } from "../../types/models.js";
import type { CredentialsConfig } from "../../types/providers.js";
import { checkCredentialsAttempt } from "../rate-limit/index.js";
import { recordSecurityEvent } from "../security-log/log.js";
import { hasFreshProof, reauthenticate } from "../step-up/fresh-proof.js";
import { logRefusal, policyOf, refusalJson, wantsJson } from "./answer.js";
import type { PasswordConfig } from "./options.js";
import { renderChangePage } from "./pages-reset.js";
import { checkPassword } from "./policy.js";
import { notifyChanged } from "./reset-complete.js";
import { FORGOT_ROUTE, routeUrl } from "./reset-request.js";
import { keepOnlyThisSession } from "./sessions.js";
import { PENDING, passwordAccount, replaceHash, type StoredPassword, storeOf } from "./store.js";

/** The route of the change. */
export const CHANGE_ROUTE = "change-password";

/** The fields as the rate limits read them: the account is the `email`, as at sign-in. */
const FIELDS = { email: { type: "email" }, password: { type: "password" } };

/** The JSON answer of a change. */
export const PASSWORD_CHANGED = {
  status: "passwordChanged",
  message: "Your password was changed, and every other browser was signed out.",
} as const;

const text = (value: unknown) => (typeof value === "string" ? value : undefined);

interface PageState {
  error?: string;
  invalid?: "current" | "password";
}

async function changePage(
  ctx: Context,
  provider: PasswordConfig,
  user: AdapterUser,
  state: PageState = {},
  status = 200,
): Promise<ResponseInternal> {
  const [{ token }, callbackUrl] = await Promise.all([ctx.csrf(), ctx.callbackUrl()]);
  const html = renderChangePage({
    providerId: provider.id,
    action: routeUrl(ctx, CHANGE_ROUTE, provider),
    csrfToken: token,
    callbackUrl,
    email: user.email ?? "",
    forgotUrl: routeUrl(ctx, FORGOT_ROUTE, provider),
    minLength: policyOf(provider).minLength,
    theme: ctx.config.theme,
    ...state,
  });
  return htmlResult(html, status);
}

/** Not signed in: a JSON 401, or the sign-in page, which comes back here. */
function signInFirst(ctx: Context, provider: PasswordConfig, json: boolean): ResponseInternal {
  if (json) {
    return jsonResult(
      { error: "Unauthenticated", message: "Sign in to change your password." },
      401,
      noStore,
    );
  }
  const back = routeUrl(ctx, CHANGE_ROUTE, provider);
  const page = ctx.config.pages.signIn ?? `${ctx.config.basePath}/signin`;
  return redirectResult(pageUrl(ctx, page, { callbackUrl: back }));
}

/** The signed-in user and their session, or null. */
async function signedIn(ctx: Context): Promise<{ ref: SessionRef; user: AdapterUser } | null> {
  const ref = await identifySession(ctx);
  if (!ref) return null;
  const user = await storeOf(ctx).getUser(ref.userId);
  return user ? { ref, user } : null;
}

/** The user's password, when it can sign in (a pending one voided by a proof cannot). */
function usable(stored: StoredPassword | null, user: AdapterUser): StoredPassword | null {
  return stored && !(stored.pending && user.emailVerified) ? stored : null;
}

export async function changePassword(
  ctx: Context,
  provider: PasswordConfig,
): Promise<ResponseInternal> {
  const json = wantsJson(ctx);
  if (ctx.req.method !== "POST") {
    const found = await signedIn(ctx);
    return found ? changePage(ctx, provider, found.user) : signInFirst(ctx, provider, false);
  }
  await requireCsrf(ctx);
  const found = await signedIn(ctx);
  if (!found) return signInFirst(ctx, provider, json);
  const { ref, user } = found;
  if (!(await hasFreshProof(ctx, ref))) {
    return reauthenticate(ctx, json, routeUrl(ctx, CHANGE_ROUTE, provider), {
      userId: user.id,
      action: CHANGE_ROUTE,
    });
  }
  const refuse = (error: string, message: string, invalid?: PageState["invalid"]) => {
    if (json) return refusalJson(ctx, error, message);
    logRefusal(ctx, error);
    return changePage(
      ctx,
      provider,
      user,
      { error: message, ...(invalid ? { invalid } : {}) },
      400,
    );
  };
  const stored = usable((await passwordAccount(ctx, provider, user.id)).stored, user);
  if (!stored) return refuse("NoPassword", "This account has no password to change.");
  const body = ctx.req.body ?? {};
  const checked = await checkPassword(body.password, policyOf(provider), {
    email: user.email ?? null,
    name: text(user.name) ?? null,
    logger: ctx.config.logger,
  });
  if (!checked.ok) return refuse(checked.error, checked.message, "password");

  // The current password is a sign-in's: its limits first, then one verification.
  const current = text(body.currentPassword) ?? "";
  const limited = { ...provider, credentials: FIELDS } as unknown as CredentialsConfig;
  const attempt = await checkCredentialsAttempt(ctx, limited, {
    email: user.email ?? "",
    password: current,
  });
  let right: boolean;
  try {
    right = await verifyPassword(current, stored.hash, provider.hash);
  } catch (cause) {
    await attempt.failed();
    throw new CallbackRouteError("The password could not be verified", { cause });
  }
  if (!right) {
    await attempt.failed();
    return refuse("WrongPassword", "The current password is wrong.", "current");
  }
  await attempt.succeeded();

  const hash = await hashPassword(checked.password, provider.hash);
  await replaceHash(ctx, provider, user.id, stored.pending ? PENDING + hash : hash);
  const cookies = await keepOnlyThisSession(ctx, ref, user, provider, "passwordChanged");
  await recordSecurityEvent(ctx, {
    type: "passwordChanged",
    userId: user.id,
    provider: provider.id,
    providerType: "password",
  });
  await announce(ctx, "credentialsChanged", { userId: user.id, reason: "passwordChanged" });
  if (user.email) await notifyChanged(ctx, provider, user.email);
  const result = json
    ? jsonResult(PASSWORD_CHANGED, 200, noStore)
    : redirectResult(await ctx.callbackUrl());
  result.cookies = [...(result.cookies ?? []), ...cookies];
  return result;
}
