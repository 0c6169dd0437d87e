/**
 * Whether the owner of an address may take over the user that holds it unproven, by choosing a
 * password through a link mailed to it: the same rule as an email link's (docs/security.md,
 * "Linking and sign-up rules"). Proving the address proves nothing about the user's other ways
 * in, so the user may hold none but this provider's password account (no other account, no
 * passkey), and every session it may have must be endable (someone may have signed in through a
 * Credentials provider).
 */
import { capabilitiesOf, mayHoldOtherAccount } from "../../capabilities.js";
import type { Context } from "../../context.js";
import type { AdapterUser } from "../../types/models.js";
import type { PasswordConfig } from "./options.js";
import { canEndSessions } from "./requirements.js";

export async function mayAdopt(
  ctx: Context,
  provider: Pick<PasswordConfig, "id">,
  user: AdapterUser,
): Promise<boolean> {
  const credentials = ctx.config.providers.some((p) => p.type === "credentials");
  if (credentials && !canEndSessions(ctx.config)) return false;
  const own = (account: { type: string; provider: string; providerAccountId: string }) =>
    account.type === "password" &&
    account.provider === provider.id &&
    account.providerAccountId === user.id;
  const [holdsOther, authenticators] = await Promise.all([
    mayHoldOtherAccount(ctx.config, user.id, own),
    capabilitiesOf(ctx.config).listAuthenticators?.(user.id),
  ]);
  if (authenticators && authenticators.length > 0) return false;
  return !holdsOther;
}
