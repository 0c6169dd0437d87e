/**
 * The sign-in step of two-factor sign-in: after the first factor, a user whose second factor is
 * enabled gets no session but the challenge page (./challenge.ts). Which first factors ask: a
 * password (Credentials or Password providers), an email link or code, and OAuth or OIDC only
 * where `twoFactor.oauth` says so. A passkey sign-in does not: the passkey is a possession factor
 * verified with the user's PIN or biometric, two factors on its own. Nor does a browser the user
 * trusted (./trust.ts): its cookie names this user, a browser listed in their row, and the row's
 * current generation of trust.
 */
import type { Context } from "../../context.js";
import type { PendingSignIn } from "../../types/moments.js";
import { readTwoFactor } from "./store.js";
import { isTrustedBrowser } from "./trust.js";

export { TWO_FACTOR_STEP } from "./carried.js";

const ASKED = new Set(["credentials", "password", "email"]);

function asks(ctx: Context, provider: PendingSignIn["provider"]): boolean {
  if (ASKED.has(provider.type)) return true;
  if (provider.type !== "oauth" && provider.type !== "oidc") return false;
  const oauth = ctx.config.source.twoFactor?.oauth ?? false;
  return oauth === true || (Array.isArray(oauth) && oauth.includes(provider.id));
}

/** The step's check: the challenge page's URL when this sign-in must pass it. */
export async function requireChallenge(
  ctx: Context,
  pending: PendingSignIn,
): Promise<string | undefined> {
  if (!asks(ctx, pending.provider)) return undefined;
  const userId = (pending.user as { id?: unknown }).id;
  if (typeof userId !== "string" || userId === "") return undefined;
  const record = await readTwoFactor(ctx, userId);
  if (!record?.enabled) return undefined;
  if (await isTrustedBrowser(ctx, userId, record)) return undefined;
  return `${ctx.authUrl}/two-factor/challenge`;
}
