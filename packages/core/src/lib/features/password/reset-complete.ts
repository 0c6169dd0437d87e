/**
 * The end of every reset, once a link or a code is spent: the new password is stored (the old
 * one signs in nowhere from now on, and every other reset token stops matching), every session
 * of the user ends, the security log records `passwordReset`, the address is told, and this
 * browser is signed in.
 */
import type { Context } from "../../context.js";
import { hashPassword } from "../../crypto/password.js";
import { announce } from "../../moments.js";
import { completeSignIn } from "../../sign-in.js";
import type { ResponseInternal } from "../../types/config.js";
import type { AdapterUser } from "../../types/models.js";
import { recordSecurityEvent } from "../security-log/log.js";
import { sendPasswordEmail } from "./mail.js";
import type { PasswordConfig } from "./options.js";
import { FORGOT_ROUTE, routeUrl } from "./reset-request.js";
import { endEverySession } from "./sessions.js";
import { publicAccount, replaceHash } from "./store.js";

export async function completeReset(
  ctx: Context,
  provider: PasswordConfig,
  user: AdapterUser,
  password: string,
  callbackUrl: string,
): Promise<ResponseInternal> {
  const hash = await hashPassword(password, provider.hash);
  // Stored first: from now on the old password signs in nowhere, and no session it opens survives.
  await replaceHash(ctx, provider, user.id, hash);
  const ended = await endEverySession(ctx, user.id, "passwordReset");
  await recordSecurityEvent(ctx, {
    type: "passwordReset",
    userId: user.id,
    provider: provider.id,
    providerType: "password",
  });
  await announce(ctx, "credentialsChanged", { userId: user.id, reason: "passwordReset" });
  if (user.email) await notifyChanged(ctx, provider, user.email);
  const account = publicAccount(provider, user.id);
  return completeSignIn(ctx, {
    provider,
    callbackUrl,
    gate: { user, account },
    knownUserId: user.id,
    settle: () => ({ user, account, isNewUser: false, ...ended }),
  });
}

/**
 * Tells the address that its password changed, with the page that starts a reset. A failure is
 * logged: the password has changed either way.
 */
export async function notifyChanged(
  ctx: Context,
  provider: PasswordConfig,
  address: string,
): Promise<void> {
  try {
    await sendPasswordEmail(ctx, provider, {
      kind: "passwordChanged",
      to: address,
      url: routeUrl(ctx, FORGOT_ROUTE, provider),
    });
  } catch (error) {
    ctx.config.logger.error(error as Error);
  }
}
