/**
 * The sign-in step of two-factor sign-in: after the first factor, a user whose second factor is
 * enabled gets no session but the challenge page (./challenge.ts). Which first factors ask: a
 * password (Credentials or Password providers), an email link or code, and OAuth or OIDC only
 * where `twoFactor.oauth` says so. A passkey sign-in does not: the WebAuthn ceremony requires
 * the authenticator to verify the user (PIN or biometric), so a passkey is two factors on its
 * own. Nor does a browser the user trusted (./trust.ts): its cookie names this user, a browser
 * listed in their row, and the row's current generation of trust.
 *
 * A passkey of the waiting user, used on the challenge page, answers the challenge too
 * ({@link acceptPasskey}, the step's `acceptProof`).
 */
import type { Context } from "../../context.js";
import type { PendingSignIn } from "../../types/moments.js";
import { readTwoFactor, updateTwoFactor } from "./store.js";
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

const userIdOf = (pending: PendingSignIn) => (pending.user as { id?: unknown }).id;

/**
 * The step's `acceptProof`: a passkey sign-in of the waiting user answers the challenge when it
 * adds a possession factor the first sign-in did not prove, and the challenge is newer than the
 * user's last answered one. It is then marked answered in the same compare-and-set write as a
 * code (./prove.ts), so neither it nor an older challenge can be answered again. A user who
 * turned two-factor off meanwhile needs no second factor.
 */
export async function acceptPasskey(
  ctx: Context,
  pending: PendingSignIn,
  factors: readonly string[],
): Promise<boolean> {
  if (!factors.includes("hwk") || pending.factors.includes("hwk")) return false;
  const userId = userIdOf(pending);
  if (typeof userId !== "string") return false;
  for (let attempt = 0; attempt < 4; attempt++) {
    const record = await readTwoFactor(ctx, userId);
    if (!record?.enabled) return true;
    if (record.completedAt >= pending.issuedAt) return false;
    if (await updateTwoFactor(ctx, userId, record, { completedAt: Date.now() })) return true;
  }
  return false;
}
