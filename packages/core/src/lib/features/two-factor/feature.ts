/**
 * Two-factor sign-in (docs/two-factor.md): on with `twoFactor`, a sign-in step holds the sign-in
 * of a user with an enabled second factor until a code or a backup code is given (./step.ts,
 * ./challenge.ts), and the signed-in user's routes enrol, regenerate backup codes and turn it
 * off (./account.ts), and list and forget the browsers they trusted (./trust.ts), which a reset,
 * a change or a removal of the password ends too (./listener.ts). Its code loads when a request
 * first needs it.
 */
import type { Context } from "../../context.js";
import type { ErrorType } from "../../errors.js";
import type { Feature, FeatureError } from "../../feature.js";
import { lazyListener } from "../../moments.js";
import { checkTwoFactorConfig } from "./requirements.js";
import backupCodes from "./route-backup-codes.js";
import challenge from "./route-challenge.js";
import confirm from "./route-confirm.js";
import disable from "./route-disable.js";
import enroll from "./route-enroll.js";
import forgetBrowser from "./route-forget-browser.js";
import settings from "./route-settings.js";
import { twoFactorStep } from "./step.js";

/** The error types it raises (./errors.ts has the classes and their augmentations). */
const twoFactorErrors: readonly FeatureError[] = [
  { type: "TwoFactorFailed" as string as ErrorType, clientSafe: true, mistake: true },
  {
    type: "TwoFactorChallengeExpired" as string as ErrorType,
    clientSafe: true,
    mistake: true,
    signInMessage:
      "That sign-in took too long, had too many wrong codes, or belongs to another browser. Sign in again.",
  },
];

const endTrust = lazyListener(
  ["credentialsChanged"],
  async () => (await import("./listener.js")).trustListener,
);

/** A user with two-factor sign-in on: sensitive actions need a fresh sign-in (features/step-up). */
async function needsFreshProof(ctx: Context, userId: string): Promise<boolean> {
  const { readTwoFactor } = await import("./store.js");
  return (await readTwoFactor(ctx, userId))?.enabled ?? false;
}

export const twoFactorFeature = {
  name: "two-factor",
  errors: twoFactorErrors,
  routes: [settings, enroll, confirm, backupCodes, disable, forgetBrowser, challenge],
  equip(config) {
    if (!config.source.twoFactor) return undefined;
    checkTwoFactorConfig(config);
    return { steps: [twoFactorStep], listeners: [endTrust], needsFreshProof };
  },
} satisfies Feature;
