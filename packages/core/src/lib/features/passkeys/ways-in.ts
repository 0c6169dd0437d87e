/**
 * Whether a user surely keeps a way to sign in once one of their passkeys is gone: the check
 * before a passkey is removed, as ../password/ways-in.ts is before a password is. Only what the
 * user surely holds counts, so an adapter that cannot say refuses the removal:
 *
 * - another of their passkeys (any WebAuthn provider signs in with any stored passkey);
 * - a proven address, where an email sign-in provider is configured (it finds users by address);
 * - with `listAccountsByUserId`, an account of a configured provider that signs in: OAuth or
 *   OIDC, or a password provider's account holding a password that proves something (a pending
 *   one chosen at an unconfirmed sign-up does not: `provesNothing`).
 */
import { capabilitiesOf, mayHoldOtherAccount } from "../../capabilities.js";
import type { Context } from "../../context.js";
import { partsOf } from "../../feature.js";
import type { AdapterAccount, AdapterAuthenticator, AdapterUser } from "../../types/models.js";

/** Whether `user` keeps a way in with `otherPasskeys`, the passkeys they hold beside the one going. */
export async function keepsAnotherWayIn(
  ctx: Context,
  user: AdapterUser,
  otherPasskeys: readonly AdapterAuthenticator[],
): Promise<boolean> {
  const { config } = ctx;
  if (otherPasskeys.length > 0) return true;
  const can = capabilitiesOf(config);
  const types = new Map(config.providers.map((p) => [p.id, p.type as string]));
  const configured = (type: string) => [...types.values()].includes(type);
  if (configured("email") && user.email && user.emailVerified) return true;
  if (!can.listAccounts) return false;
  const { provesNothing } = partsOf(config);
  const signsIn = (account: AdapterAccount) => {
    const type = types.get(account.provider);
    if (type === "oauth" || type === "oidc") return true;
    if (type !== "password" || provesNothing(account)) return false;
    const hash = (account as { passwordHash?: unknown }).passwordHash;
    return typeof hash === "string" && hash !== "";
  };
  // Every account but the ones that sign in is "own": the user holds another exactly when one
  // of theirs signs in.
  return mayHoldOtherAccount(config, user.id, (account) => !signsIn(account));
}
