/**
 * When another way in proves the address of a user whose password is still pending (chosen at a
 * sign-up nobody confirmed: an email link or code adopts the user), that password is cleared:
 * whoever chose it never showed they own the address. The proof has already ended the user's
 * sessions (features/sessions/address-proof.ts). A pending password stops signing in the moment
 * the address is proven, cleared or not (./sign-in.ts); clearing it keeps the row honest.
 */
import type { Listener } from "../../moments.js";
import { passwordProviders } from "./requirements.js";
import { replaceHash, storedPassword } from "./store.js";

export const voidListener: Listener = {
  emailVerified: async (ctx, { user }) => {
    for (const provider of passwordProviders(ctx.config)) {
      try {
        const stored = await storedPassword(ctx, provider, user.id);
        if (stored?.pending) await replaceHash(ctx, provider, user.id, null);
      } catch (error) {
        ctx.config.logger.error(error as Error);
      }
    }
  },
};
