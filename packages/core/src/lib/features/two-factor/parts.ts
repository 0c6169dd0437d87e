/**
 * The code of two-factor sign-in that `TwoFactor()` carries (./carried.ts): reachable only from
 * that factory, so an app without it bundles none of it. Each route's module still loads on the
 * route's first request.
 */

import { trustListener } from "./listener.js";
import type { TwoFactorParts } from "./parts-types.js";
import { acceptPasskey, requireChallenge } from "./step.js";
import { readTwoFactor } from "./store.js";

export const twoFactorParts: TwoFactorParts = {
  routes: {
    "two-factor": async (ctx) => (await import("./account.js")).settings(ctx),
    "two-factor/enroll": async (ctx) => (await import("./account.js")).enroll(ctx),
    "two-factor/confirm": async (ctx) => (await import("./account.js")).confirm(ctx),
    "two-factor/backup-codes": async (ctx) =>
      (await import("./account.js")).regenerateBackupCodes(ctx),
    "two-factor/disable": async (ctx) => (await import("./account.js")).disable(ctx),
    "two-factor/forget-browser": async (ctx) => (await import("./account.js")).forgetBrowser(ctx),
    "two-factor/challenge": async (ctx) => (await import("./challenge.js")).challenge(ctx),
  },
  requireStep: requireChallenge,
  acceptProof: acceptPasskey,
  trustListener,
  needsFreshProof: async (ctx, userId) => (await readTwoFactor(ctx, userId))?.enabled ?? false,
};
