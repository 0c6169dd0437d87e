/**
 * Whether a user surely keeps a way to sign in without their password under `provider`: the
 * check before a password is removed. It is the adoption rule (./adopt.ts) turned around: there,
 * anything the user *may* hold counts against them; here only what the user surely holds counts,
 * so an adapter that cannot say refuses the removal.
 *
 * - a passkey, where a passkey provider is configured;
 * - a proven address, where an email sign-in provider is configured (it finds users by address);
 * - with `listAccountsByUserId`, an account of another configured provider that signs in: OAuth
 *   or OIDC, or another password provider's account holding a password.
 */
import { capabilitiesOf, mayHoldOtherAccount } from "../../capabilities.js";
import type { Context } from "../../context.js";
import type { AdapterAccount, AdapterUser } from "../../types/models.js";
import type { PasswordProviderRef } from "./store.js";

export async function holdsAnotherWayIn(
  ctx: Context,
  provider: PasswordProviderRef,
  user: AdapterUser,
): Promise<boolean> {
  const { config } = ctx;
  const types = new Map(config.providers.map((p) => [p.id, (p as { type: string }).type]));
  const configured = (type: string) => [...types.values()].includes(type);
  if (configured("email") && user.email && user.emailVerified) return true;
  const can = capabilitiesOf(config);
  if (configured("webauthn")) {
    const passkeys = await can.listAuthenticators?.(user.id);
    if (passkeys && passkeys.length > 0) return true;
  }
  if (!can.listAccounts) return false;
  const signsIn = (account: AdapterAccount) => {
    if (account.provider === provider.id) return false;
    const type = types.get(account.provider);
    if (type === "oauth" || type === "oidc") return true;
    return type === "password" && typeof account.passwordHash === "string";
  };
  // Every account but the ones that sign in is "own": the user holds another exactly when one
  // of theirs signs in.
  return mayHoldOtherAccount(config, user.id, (account) => !signsIn(account));
}
