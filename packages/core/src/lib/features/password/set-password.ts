/**
 * GET and POST /set-password/<password provider> and /remove-password/<password provider>: a
 * signed-in user adds a password to an account that signs in another way (OAuth, an email link,
 * a passkey), or takes it away (docs/passwords.md, "Setting and removing a password").
 *
 * - Setting needs no password yet (a usable one is `PasswordExists`: change it instead), the
 *   account's address proven (the password signs in with it: `EmailUnproven`), a sign-in from
 *   the last {@link RECENT_SIGN_IN} seconds (a stolen session must not add a lasting way in:
 *   `ReauthenticationRequired`) and a password under the policy. The security log records
 *   `passwordSet` and the address is told; no session ends (nothing was taken away).
 * - Removing needs the current password, under the sign-in rate limits of the account, and
 *   another way in the user surely holds (./ways-in.ts; else `LastWayIn`). The password is
 *   voided, every other session ends (this browser's goes on under a new id), the security log
 *   records `passwordRemoved` and the address is told.
 */
import { requireCsrf } from "../../actions/csrf.js";
import type { Context } from "../../context.js";
import { hashPassword } from "../../crypto/password.js";
import { announce } from "../../moments.js";
import { htmlResult, jsonResult, noStore, redirectResult } from "../../response.js";
import type { SessionRef } from "../../session/index.js";
import type { ResponseInternal } from "../../types/config.js";
import type { AdapterUser } from "../../types/models.js";
import { recordSecurityEvent } from "../security-log/log.js";
import { hasFreshProof, reauthenticate, signedInWithin } from "../step-up/fresh-proof.js";
import { logRefusal, policyOf, refusalJson, wantsJson } from "./answer.js";
import { RECENT_SIGN_IN } from "./email-change.js";
import { PASSWORD_REMOVED_EVENT, PASSWORD_SET_EVENT } from "./events.js";
import { sendPasswordEmail } from "./mail.js";
import type { PasswordConfig, PasswordEmailKind } from "./options.js";
import { renderRemovePasswordPage, renderSetPasswordPage } from "./pages-account.js";
import { checkPassword } from "./policy.js";
import { FORGOT_ROUTE, routeUrl, signInPage } from "./reset-request.js";
import { keepOnlyThisSession } from "./sessions.js";
import { currentPasswordIsRight, signedIn, signInFirst, usablePassword } from "./signed-in.js";
import { replaceHash } from "./store.js";
import { holdsAnotherWayIn } from "./ways-in.js";

/** The routes. */
export const SET_ROUTE = "set-password";
export const REMOVE_ROUTE = "remove-password";

/** The JSON answers. */
export const PASSWORD_SET = {
  status: "passwordSet",
  message: "Your account now also signs in with its address and this password.",
} as const;
export const PASSWORD_REMOVED = {
  status: "passwordRemoved",
  message: "Your password was removed, and every other browser was signed out.",
} as const;

const text = (value: unknown) => (typeof value === "string" ? value : undefined);

type Route = typeof SET_ROUTE | typeof REMOVE_ROUTE;

async function page(
  ctx: Context,
  provider: PasswordConfig,
  route: Route,
  user: AdapterUser,
  error?: string,
  status = 200,
): Promise<ResponseInternal> {
  const [{ token }, callbackUrl] = await Promise.all([ctx.csrf(), ctx.callbackUrl()]);
  const params = {
    providerId: provider.id,
    action: routeUrl(ctx, route, provider),
    csrfToken: token,
    callbackUrl,
    email: user.email ?? "",
    minLength: policyOf(provider).minLength,
    theme: ctx.config.theme,
    ...(error ? { error } : {}),
  };
  const render = route === SET_ROUTE ? renderSetPasswordPage : renderRemovePasswordPage;
  return htmlResult(render(params), status);
}

/** The signed-in user of a POST, or the answer to one that is not (CSRF checked first). */
async function begin(
  ctx: Context,
  provider: PasswordConfig,
  route: Route,
): Promise<{ ref: SessionRef; user: AdapterUser } | ResponseInternal> {
  if (ctx.req.method !== "POST") {
    const found = await signedIn(ctx);
    return found
      ? page(ctx, provider, route, found.user)
      : signInFirst(ctx, provider, route, false);
  }
  await requireCsrf(ctx);
  return (await signedIn(ctx)) ?? signInFirst(ctx, provider, route, wantsJson(ctx));
}

function refusal(ctx: Context, provider: PasswordConfig, route: Route, user: AdapterUser) {
  return (error: string, message: string) => {
    if (wantsJson(ctx)) return refusalJson(ctx, error, message);
    logRefusal(ctx, error);
    return page(ctx, provider, route, user, message, 400);
  };
}

/** Tells the address; a failure is logged (the change is made either way). */
async function tell(
  ctx: Context,
  provider: PasswordConfig,
  kind: PasswordEmailKind,
  user: AdapterUser,
  url: string,
): Promise<void> {
  if (!user.email) return;
  try {
    await sendPasswordEmail(ctx, provider, { kind, to: user.email, url });
  } catch (error) {
    ctx.config.logger.error(error as Error);
  }
}

export async function setPassword(
  ctx: Context,
  provider: PasswordConfig,
): Promise<ResponseInternal> {
  const found = await begin(ctx, provider, SET_ROUTE);
  if (!("user" in found && "ref" in found)) return found;
  const { ref, user } = found;
  const refuse = refusal(ctx, provider, SET_ROUTE, user);
  if (await usablePassword(ctx, provider, user)) {
    return refuse("PasswordExists", "This account has a password: change it instead.");
  }
  if (!user.email || !user.emailVerified) {
    return refuse(
      "EmailUnproven",
      "Confirm your account's email address first: the password signs in with it.",
    );
  }
  if (!signedInWithin(ref, RECENT_SIGN_IN)) {
    return refuse(
      "ReauthenticationRequired",
      "Sign in again, then set your password within ten minutes.",
    );
  }
  const checked = await checkPassword(ctx.req.body?.password, policyOf(provider), {
    email: user.email,
    name: text(user.name) ?? null,
    logger: ctx.config.logger,
  });
  if (!checked.ok) return refuse(checked.error, checked.message);
  await replaceHash(ctx, provider, user.id, await hashPassword(checked.password, provider.hash));
  await recordSecurityEvent(ctx, {
    type: PASSWORD_SET_EVENT,
    userId: user.id,
    provider: provider.id,
    providerType: "password",
  });
  await tell(ctx, provider, "passwordSet", user, routeUrl(ctx, FORGOT_ROUTE, provider));
  if (wantsJson(ctx)) return jsonResult(PASSWORD_SET, 200, noStore);
  return redirectResult(await ctx.callbackUrl());
}

export async function removePassword(
  ctx: Context,
  provider: PasswordConfig,
): Promise<ResponseInternal> {
  const found = await begin(ctx, provider, REMOVE_ROUTE);
  if (!("user" in found && "ref" in found)) return found;
  const { ref, user } = found;
  if (!(await hasFreshProof(ctx, ref))) {
    return reauthenticate(ctx, wantsJson(ctx), routeUrl(ctx, REMOVE_ROUTE, provider), {
      userId: user.id,
      action: REMOVE_ROUTE,
    });
  }
  const refuse = refusal(ctx, provider, REMOVE_ROUTE, user);
  const stored = await usablePassword(ctx, provider, user);
  if (!stored) return refuse("NoPassword", "This account has no password to remove.");
  const right = await currentPasswordIsRight(
    ctx,
    provider,
    user,
    stored,
    ctx.req.body?.currentPassword,
  );
  if (!right) return refuse("WrongPassword", "The current password is wrong.");
  if (!(await holdsAnotherWayIn(ctx, provider, user))) {
    return refuse(
      "LastWayIn",
      "The password is the only way your account signs in: add another way before removing it.",
    );
  }
  await replaceHash(ctx, provider, user.id, null);
  const cookies = await keepOnlyThisSession(ctx, ref, user, provider, "passwordRemoved");
  await recordSecurityEvent(ctx, {
    type: PASSWORD_REMOVED_EVENT,
    userId: user.id,
    provider: provider.id,
    providerType: "password",
  });
  await announce(ctx, "credentialsChanged", { userId: user.id, reason: "passwordRemoved" });
  await tell(ctx, provider, "passwordRemoved", user, signInPage(ctx));
  const result = wantsJson(ctx)
    ? jsonResult(PASSWORD_REMOVED, 200, noStore)
    : redirectResult(await ctx.callbackUrl());
  result.cookies = [...(result.cookies ?? []), ...cookies];
  return result;
}
