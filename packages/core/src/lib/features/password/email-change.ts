/**
 * GET and POST /change-email/<password provider>: a signed-in user moves their account to a new
 * address (docs/passwords.md, "Changing the address").
 *
 * - The request (POST with `email`, CSRF-checked) needs the current password when the user has
 *   one, under the sign-in rate limits of the account; a user without one needs a sign-in from
 *   the last {@link RECENT_SIGN_IN} seconds. It mails a link to the new address
 *   (./email-change-links.ts) and changes nothing. When another user holds the address, the
 *   answer is the same, and the address gets an email saying it cannot be used instead.
 * - A GET of the link changes nothing (a mail scanner that opens it spends nothing): a page with
 *   one button, which POSTs the token back.
 * - The POST spends the link, checks again, in turn with any other use of a link to the same
 *   address in this process, that no other user holds the address (a store that keeps addresses
 *   unique refuses the write between processes), then moves the user to it, proven now. The
 *   user's email sign-in accounts named after the old address are unlinked, every session of
 *   the user ends (the link may be opened anywhere; nobody is signed in by it), the security log
 *   records `emailChanged`, and the old address is told. The password account is keyed by the
 *   user's id and does not change.
 */
import { requireCsrf } from "../../actions/csrf.js";
import { capabilitiesOf } from "../../capabilities.js";
import type { Context } from "../../context.js";
import { normalizeEmail } from "../../email/normalize.js";
import { Verification } from "../../errors.js";
import { announce } from "../../moments.js";
import { htmlResult, jsonResult, noStore } from "../../response.js";
import type { ResponseInternal } from "../../types/config.js";
import type { AdapterUser } from "../../types/models.js";
import { limitEmail } from "../rate-limit/index.js";
import { recordSecurityEvent } from "../security-log/log.js";
import { hasFreshProof, reauthenticate, signedInWithin } from "../step-up/fresh-proof.js";
import { logRefusal, refusalJson, wantsJson } from "./answer.js";
import {
  CHANGE_EMAIL_ROUTE,
  createEmailChangeLink,
  redeemEmailChangeLink,
} from "./email-change-links.js";
import { EMAIL_CHANGED_EVENT } from "./events.js";
import { sendPasswordEmail } from "./mail.js";
import type { PasswordConfig } from "./options.js";
import {
  type ChangeEmailPageParams,
  renderChangeEmailPage,
  renderEmailChangedPage,
  renderEmailChangeLinkPage,
} from "./pages-account.js";
import { routeUrl, signInPage } from "./reset-request.js";
import { endEverySession } from "./sessions.js";
import { currentPasswordIsRight, signedIn, signInFirst, usablePassword } from "./signed-in.js";
import { storeOf } from "./store.js";

/** How recent a sign-in must be for a user without a password to ask, in seconds. */
export const RECENT_SIGN_IN = 10 * 60;

/** The JSON answer of every accepted request. */
export const EMAIL_CHANGE_SENT = {
  status: "emailChangeSent",
  message: "We sent a link to the new address: your address changes when it is used.",
} as const;

/** The JSON answer of a used link. */
export const EMAIL_CHANGED = {
  status: "emailChanged",
  message: "Your email address was changed, and every browser was signed out.",
} as const;

const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);

/**
 * One use of a link to an address at a time in this process: the check that nobody holds the
 * address and the write that takes it run together.
 */
const claims = new Map<string, Promise<unknown>>();
async function oneAtATime<T>(key: string, run: () => Promise<T>): Promise<T> {
  const before = claims.get(key) ?? Promise.resolve();
  const turn = before.then(run, run);
  const settled = turn.catch(() => undefined);
  claims.set(key, settled);
  try {
    return await turn;
  } finally {
    if (claims.get(key) === settled) claims.delete(key);
  }
}

async function changeEmailPage(
  ctx: Context,
  provider: PasswordConfig,
  user: AdapterUser,
  state: Partial<ChangeEmailPageParams> = {},
  status = 200,
): Promise<ResponseInternal> {
  const [{ token }, callbackUrl, stored] = await Promise.all([
    ctx.csrf(),
    ctx.callbackUrl(),
    usablePassword(ctx, provider, user),
  ]);
  const html = renderChangeEmailPage({
    providerId: provider.id,
    action: routeUrl(ctx, CHANGE_EMAIL_ROUTE, provider),
    csrfToken: token,
    callbackUrl,
    email: user.email ?? "",
    needsPassword: stored !== null,
    theme: ctx.config.theme,
    ...state,
  });
  return htmlResult(html, status);
}

export async function changeEmail(
  ctx: Context,
  provider: PasswordConfig,
): Promise<ResponseInternal> {
  if (ctx.req.method !== "POST") {
    const { token, email, user } = ctx.req.query;
    if (token && email && user) return linkPage(ctx, provider, { token, email, user });
    const found = await signedIn(ctx);
    if (!found) return signInFirst(ctx, provider, CHANGE_EMAIL_ROUTE, false);
    return changeEmailPage(ctx, provider, found.user);
  }
  await requireCsrf(ctx);
  if (ctx.req.body?.token !== undefined) return useLink(ctx, provider);
  return requestChange(ctx, provider);
}

/** The request: checks who asks, then mails the new address. */
async function requestChange(ctx: Context, provider: PasswordConfig): Promise<ResponseInternal> {
  const json = wantsJson(ctx);
  const found = await signedIn(ctx);
  if (!found) return signInFirst(ctx, provider, CHANGE_EMAIL_ROUTE, json);
  const { ref, user } = found;
  if (!(await hasFreshProof(ctx, ref))) {
    return reauthenticate(ctx, json, routeUrl(ctx, CHANGE_EMAIL_ROUTE, provider), {
      userId: user.id,
      action: CHANGE_EMAIL_ROUTE,
    });
  }
  const typed = text(ctx.req.body?.email) ?? "";
  const refuse = (error: string, message: string, invalid?: "email" | "current") => {
    if (json) return refusalJson(ctx, error, message);
    logRefusal(ctx, error);
    return changeEmailPage(
      ctx,
      provider,
      user,
      { error: message, newEmail: typed, ...(invalid ? { invalid } : {}) },
      400,
    );
  };
  let address: string;
  try {
    address = normalizeEmail(typed);
  } catch {
    return refuse("InvalidEmail", "Enter a valid email address.", "email");
  }
  if (address === user.email) {
    return refuse("SameEmail", "This is already your account's address.", "email");
  }
  const stored = await usablePassword(ctx, provider, user);
  if (stored) {
    const right = await currentPasswordIsRight(
      ctx,
      provider,
      user,
      stored,
      ctx.req.body?.currentPassword,
    );
    if (!right) return refuse("WrongPassword", "The current password is wrong.", "current");
  } else {
    if (!signedInWithin(ref, RECENT_SIGN_IN)) {
      return refuse(
        "ReauthenticationRequired",
        "Sign in again, then change your address within ten minutes.",
      );
    }
  }
  await limitEmail(ctx, address);

  const holder = await storeOf(ctx).getUserByEmail(address);
  // A link is stored either way, so the store's round trips do not tell a held address from a
  // free one; the one made for a held address is mailed to nobody (and would be refused anyway).
  const link = await createEmailChangeLink(ctx, provider, user, address);
  if (holder) {
    await sendPasswordEmail(ctx, provider, {
      kind: "changeEmailUnavailable",
      to: address,
      url: signInPage(ctx),
    });
  } else {
    await sendPasswordEmail(ctx, provider, {
      kind: "changeEmail",
      to: address,
      url: link.url,
      expires: link.expires,
    });
  }
  if (json) return jsonResult(EMAIL_CHANGE_SENT, 200, noStore);
  return changeEmailPage(ctx, provider, user, { sent: true });
}

/** The page the link opens: nothing is spent; no caching, and the token kept out of `Referer`. */
async function linkPage(
  ctx: Context,
  provider: PasswordConfig,
  link: { token: string; email: string; user: string },
): Promise<ResponseInternal> {
  const { token: csrfToken } = await ctx.csrf();
  const html = renderEmailChangeLinkPage({
    action: routeUrl(ctx, CHANGE_EMAIL_ROUTE, provider),
    csrfToken,
    ...link,
    theme: ctx.config.theme,
  });
  const result = htmlResult(html);
  result.headers = { ...result.headers, "Referrer-Policy": "no-referrer" };
  return result;
}

/** The link's POST: spends it, then moves the user to the new address if nobody holds it. */
async function useLink(ctx: Context, provider: PasswordConfig): Promise<ResponseInternal> {
  const body = ctx.req.body ?? {};
  const token = text(body.token);
  const email = text(body.email);
  const userId = text(body.user);
  if (!token || !email || !userId) throw new Verification("The link is incomplete");
  let address: string;
  try {
    address = normalizeEmail(email);
  } catch {
    throw new Verification("The link's email address is not an address");
  }
  const user = await storeOf(ctx).getUser(userId);
  const spent = user ? await redeemEmailChangeLink(ctx, provider, user, address, token) : null;
  if (spent === "expired") throw new Verification("The link has expired");
  if (spent !== "used" || !user) throw new Verification("The link is wrong, used or outdated");

  const changed = await oneAtATime(address, async () => {
    const holder = await storeOf(ctx).getUserByEmail(address);
    if (holder && holder.id !== user.id) return null;
    return storeOf(ctx).updateUser({ id: user.id, email: address, emailVerified: new Date() });
  });
  if (!changed) {
    const message = "Another account uses this address now: it cannot be yours as well.";
    if (wantsJson(ctx)) return refusalJson(ctx, "EmailTaken", message);
    logRefusal(ctx, "EmailTaken");
    const html = renderEmailChangedPage({
      signInUrl: signInPage(ctx),
      error: message,
      theme: ctx.config.theme,
    });
    return htmlResult(html, 400);
  }
  const old = user.email;
  if (old) await unlinkEmailAccounts(ctx, user.id, old);
  await endEverySession(ctx, user.id, "emailChanged");
  await announce(ctx, "userUpdated", { user: changed });
  await recordSecurityEvent(ctx, {
    type: EMAIL_CHANGED_EVENT,
    userId: user.id,
    provider: provider.id,
    providerType: "password",
  });
  if (old) await notifyOldAddress(ctx, provider, old);
  if (wantsJson(ctx)) return jsonResult(EMAIL_CHANGED, 200, noStore);
  return htmlResult(
    renderEmailChangedPage({ signInUrl: signInPage(ctx), theme: ctx.config.theme }),
  );
}

/**
 * Unlinks the user's email sign-in accounts named after `old` (an email account's
 * `providerAccountId` is the address its links went to): none stays to tie the old address to
 * the user. The email sign-in finds its user by address, so the new one signs in with it.
 */
async function unlinkEmailAccounts(ctx: Context, userId: string, old: string): Promise<void> {
  const { getUserByAccount, unlinkAccount } = capabilitiesOf(ctx.config);
  if (!getUserByAccount || !unlinkAccount) return;
  for (const p of ctx.config.providers) {
    if ((p as { type: string }).type !== "email") continue;
    const key = { provider: p.id, providerAccountId: old };
    if ((await getUserByAccount(key))?.id === userId) await unlinkAccount(key);
  }
}

/** Tells the old address; a failure is logged (the address has changed either way). */
async function notifyOldAddress(
  ctx: Context,
  provider: PasswordConfig,
  old: string,
): Promise<void> {
  try {
    await sendPasswordEmail(ctx, provider, {
      kind: "emailChanged",
      to: old,
      url: signInPage(ctx),
    });
  } catch (error) {
    ctx.config.logger.error(error as Error);
  }
}
