/**
 * What two-factor sign-in hears: when a user's password is reset, changed or removed
 * (`credentialsChanged`), every browser they trusted to skip the second factor ends, with a new
 * generation of trust (./trust.ts). A failure is logged, as every listener's is.
 */
import type { Listener } from "../../types/moments.js";
import { forgetTrusted } from "./trust.js";

export const trustListener: Listener = {
  async credentialsChanged(ctx, { userId }) {
    try {
      await forgetTrusted(ctx, userId, null);
    } catch (error) {
      ctx.config.logger.error(error as Error);
    }
  },
};
