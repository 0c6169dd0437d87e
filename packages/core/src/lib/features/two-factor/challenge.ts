/**
 * GET and POST /two-factor/challenge: the second step of a sign-in held by ./step.ts. The page
 * asks for a code from the app or a backup code; a right one, counted before it is checked and
 * spent in the same write that marks the challenge done (./prove.ts), lets the kernel issue the
 * session (`resumeSignIn`). Nothing else does: until then the browser holds only the sealed,
 * browser-bound challenge, and no session.
 *
 * A challenge ends: after `maxAttempts` tries; once the user finished any challenge issued after
 * it (an older challenge, held in another browser, is then refused); at its expiry (10 minutes).
 * Then the browser goes back to the sign-in page (`?error=TwoFactorChallengeExpired`).
 *
 * With `trustBrowser` (the page's "Don't ask again on this browser for 30 days"), the right code
 * also lists this browser in the same write and gives it the trust cookie (./trust.ts).
 */
import { requireCsrf } from "../../actions/csrf.js";
import type { Context } from "../../context.js";
import { RateLimited } from "../../errors.js";
import { carriedMethod } from "../../feature.js";
import { announce } from "../../moments.js";
import { htmlResult, pageUrl, redirectResult } from "../../response.js";
import { abandonSignIn, pendingSignIn, resumeSignIn } from "../../sign-in.js";
import type { ResponseInternal } from "../../types/config.js";
import type { PendingSignIn } from "../../types/moments.js";
import { recordSecurityEvent } from "../security-log/log.js";
import { logRefusal, optionsOf, refusalJson, routeUrl, wantsJson } from "./answer.js";
import { TwoFactorFailed } from "./errors.js";
import { BACKUP_CODE_USED_EVENT, TRUSTED_BROWSER_EVENT } from "./events.js";
import { countChallengeTry, countUserTry } from "./limits.js";
import { type PasskeyOffer, renderChallengePage } from "./pages.js";
import { proveSecondFactor } from "./prove.js";
import { TWO_FACTOR_STEP } from "./step.js";
import { listTrusted, newTrustedBrowser, TRUST_MAX_AGE, trustCookie } from "./trust.js";

export const EXPIRED = "TwoFactorChallengeExpired";

/** No challenge to answer: the sign-in page (or JSON), to start again. */
function startOver(ctx: Context, json: boolean): ResponseInternal {
  // Whatever this browser held is over.
  abandonSignIn(ctx);
  if (json) {
    return refusalJson(
      ctx,
      EXPIRED,
      "This sign-in is over, or belongs to another browser: sign in again.",
    );
  }
  logRefusal(ctx, EXPIRED);
  const page = ctx.config.pages.signIn ?? `${ctx.config.basePath}/signin`;
  return redirectResult(pageUrl(ctx, page, { error: EXPIRED }));
}

/** The passkey providers the challenge page offers, each with its sign-in-only script. */
function passkeyOffers(ctx: Context, landing: string): PasskeyOffer[] {
  return ctx.config.providers.flatMap((config) => {
    const html = carriedMethod(config)?.signInPageHtml;
    if (config.type !== "webauthn" || !html) return [];
    const provider = ctx.provider(config);
    const script = html(provider, { signInOnly: true });
    return [{ id: provider.id, callbackUrl: provider.callbackUrl, landing, script }];
  });
}

async function page(
  ctx: Context,
  pending: PendingSignIn,
  error?: string,
  invalid?: "code" | "backupCode",
) {
  const { token } = await ctx.csrf();
  const html = renderChallengePage({
    // A passkey answers the challenge when it adds a factor: not after a passkey sign-in.
    passkeys: pending.factors.includes("hwk") ? [] : passkeyOffers(ctx, pending.callbackUrl),
    action: routeUrl(ctx, "challenge"),
    csrfToken: token,
    digits: optionsOf(ctx).params.digits,
    trustDays: TRUST_MAX_AGE / 86_400,
    theme: ctx.config.theme,
    ...(error ? { error } : {}),
    ...(invalid ? { invalid } : {}),
  });
  return htmlResult(html, error ? 400 : 200);
}

const userIdOf = (pending: PendingSignIn) => (pending.user as { id?: unknown }).id;

/** Whether the form asked to trust this browser (a checkbox's `1`, or JSON's `true`). */
const asksTrust = (value: unknown) => value === "1" || value === "on" || value === true;

export async function challenge(ctx: Context): Promise<ResponseInternal> {
  const json = wantsJson(ctx);
  if (ctx.req.method !== "POST") {
    const waiting = await pendingSignIn(ctx);
    return waiting ? page(ctx, waiting) : startOver(ctx, false);
  }
  await requireCsrf(ctx);
  const pending = await pendingSignIn(ctx);
  const userId = pending ? userIdOf(pending) : undefined;
  if (!pending || typeof userId !== "string") return startOver(ctx, json);
  const options = optionsOf(ctx);
  const body = ctx.req.body ?? {};
  const backup = typeof body.backupCode === "string" && body.backupCode !== "";
  const trusted = asksTrust(body.trustBrowser) ? newTrustedBrowser(ctx) : undefined;

  // Counted before the check: per user and client address, then per challenge.
  const wait = await countUserTry(ctx, userId, options.maxAttempts);
  if (wait > 0) throw new RateLimited("Too many two-factor codes from one client", wait);
  if (!(await countChallengeTry(ctx, pending.challengeId, options.maxAttempts))) {
    return startOver(ctx, json);
  }

  const outcome = await proveSecondFactor(
    ctx,
    userId,
    backup ? { backupCode: body.backupCode } : { code: body.code },
    {
      // A challenge issued before the user's last finished one is over.
      accept: (record) => record.completedAt < pending.issuedAt,
      also: { completedAt: Date.now() },
      ...(trusted ? { extend: listTrusted(trusted) } : {}),
    },
  );
  if (outcome.ok) {
    if (trusted) {
      ctx.setCookies.push(await trustCookie(ctx, userId, trusted, outcome.record.generation));
      await recordSecurityEvent(ctx, {
        userId,
        type: TRUSTED_BROWSER_EVENT,
        provider: pending.provider.id,
        providerType: pending.provider.type,
      });
    }
    if (outcome.factor === "backupCode") {
      await recordSecurityEvent(ctx, {
        userId,
        type: BACKUP_CODE_USED_EVENT,
        provider: pending.provider.id,
        providerType: pending.provider.type,
      });
    }
    return resumeSignIn(ctx, pending, TWO_FACTOR_STEP, ["otp"]);
  }
  // The user turned two-factor off meanwhile: the sign-in needs no second factor any more.
  if (outcome.reason === "none") return resumeSignIn(ctx, pending, TWO_FACTOR_STEP, []);
  if (outcome.reason === "refused") return startOver(ctx, json);
  await announce(ctx, "signInRefused", {
    userId,
    provider: pending.provider,
    error: new TwoFactorFailed("A wrong two-factor code"),
  });
  const message = backup
    ? "That backup code is wrong or was used already."
    : "That code is wrong or was used already. Wait for the next one and try again.";
  if (json) return refusalJson(ctx, "WrongCode", message);
  logRefusal(ctx, "WrongCode");
  return page(ctx, pending, message, backup ? "backupCode" : "code");
}
