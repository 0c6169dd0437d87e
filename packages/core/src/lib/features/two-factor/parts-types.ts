/** What the code `TwoFactor()` carries gives the built-in declaration (./carried.ts). Types only. */
import type { Context } from "../../context.js";
import type { Action } from "../../routes/define.js";
import type { Listener, PendingSignIn } from "../../types/moments.js";

export interface TwoFactorParts {
  /** The routes' actions, by route name (`two-factor/enroll`, …). */
  routes: Readonly<Record<string, Action>>;
  /** The sign-in step's check: the challenge page's URL when this sign-in must pass it. */
  requireStep(ctx: Context, pending: PendingSignIn): Promise<string | undefined>;
  /** The step's `acceptProof`: a passkey of the waiting user answers the challenge. */
  acceptProof(ctx: Context, pending: PendingSignIn, factors: readonly string[]): Promise<boolean>;
  /** Hears `credentialsChanged`: ends the user's trusted browsers. */
  trustListener: Listener;
  /** Whether the user has two-factor sign-in on (sensitive actions then need a fresh sign-in). */
  needsFreshProof(ctx: Context, userId: string): Promise<boolean>;
}
