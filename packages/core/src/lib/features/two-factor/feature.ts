/**
 * Two-factor sign-in (docs/two-factor.md): on with `twoFactor`, a sign-in step holds the sign-in
 * of a user with an enabled second factor until a code or a backup code is given (./step.ts,
 * ./challenge.ts), and the signed-in user's routes enrol, regenerate backup codes and turn it
 * off (./account.ts), and list and forget the browsers they trusted (./trust.ts), which a reset,
 * a change or a removal of the password ends too (./listener.ts). This declaration is built in;
 * the code comes with the configuration's `TwoFactor()` (./carried.ts), and loads when a request
 * first needs it.
 */
import type { Context } from "../../context.js";
import { AuthError, type ErrorType } from "../../errors.js";
import type { Feature, FeatureError } from "../../feature.js";
import { lazyListener } from "../../moments.js";
import { carriesTwoFactor, partsFor, TWO_FACTOR_STEP } from "./carried.js";
import { checkTwoFactorConfig } from "./requirements.js";
import backupCodes from "./route-backup-codes.js";
import challenge from "./route-challenge.js";
import confirm from "./route-confirm.js";
import disable from "./route-disable.js";
import enroll from "./route-enroll.js";
import forgetBrowser from "./route-forget-browser.js";
import settings from "./route-settings.js";

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

export const twoFactorFeature = {
  name: "two-factor",
  errors: twoFactorErrors,
  routes: [settings, enroll, confirm, backupCodes, disable, forgetBrowser, challenge],
  equip(config) {
    if (!config.source.twoFactor) return undefined;
    checkTwoFactorConfig(config);
    if (!carriesTwoFactor(config.source.twoFactor)) {
      throw new AuthError(
        "twoFactor must be made with TwoFactor() from @gatehousejs/core/two-factor (it carries the feature's code)",
      );
    }
    const parts = () => partsFor(config);
    return {
      steps: [
        {
          id: TWO_FACTOR_STEP,
          require: async (ctx, pending) => (await parts()).requireStep(ctx, pending),
          acceptProof: async (ctx, pending, factors) =>
            (await parts()).acceptProof(ctx, pending, factors),
        },
      ],
      listeners: [lazyListener(["credentialsChanged"], async () => (await parts()).trustListener)],
      needsFreshProof: async (ctx: Context, userId: string) =>
        (await parts()).needsFreshProof(ctx, userId),
    };
  },
} satisfies Feature;
