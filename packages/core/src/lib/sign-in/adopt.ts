/**
 * When a proof of an address may take over the user that holds the address unproven
 * (`emailVerified` null). The proof (an email link, or an OAuth provider vouching for the
 * address) shows who owns the address, not who added the user's other ways in: adopting a user
 * that holds any would let whoever added them in. A feature may say that some of its accounts
 * prove nothing (a password chosen at a sign-up nobody confirmed, ../feature.ts
 * `provesNothing`): those are set aside, and the feature voids them when it hears
 * `emailVerified`. A failed listing throws: it never adopts.
 */
import { capabilitiesOf, mayHoldOtherAccount } from "../capabilities.js";
import type { Context } from "../context.js";
import { partsOf } from "../feature.js";
import { mayHoldUnendingSessions } from "../features/sessions/address-proof.js";
import { signedInUser } from "../session/index.js";
import type { AdapterAccount, AdapterUser } from "../types/models.js";

/**
 * Whether an email link may sign in as `user`: when the browser is already signed in as that
 * user, or when the user holds nothing but the link's own account (`own`) and accounts that
 * prove nothing, no passkey, and no session that could not be ended once the address is proven
 * (someone may have signed in through a Credentials provider while nothing can end sessions).
 * Without `listAccountsByUserId`, what counts is `mayHoldOtherAccount`'s guess.
 */
export async function linkMayAdopt(
  ctx: Context,
  user: AdapterUser,
  own: (account: AdapterAccount) => boolean,
): Promise<boolean> {
  if ((await signedInUser(ctx))?.id === user.id) return true;
  if (mayHoldUnendingSessions(ctx.config)) return false;
  const unproven = partsOf(ctx.config).provesNothing;
  const [holdsOther, authenticators] = await Promise.all([
    mayHoldOtherAccount(ctx.config, user.id, (a) => own(a) || unproven(a)),
    capabilitiesOf(ctx.config).listAuthenticators?.(user.id),
  ]);
  if (authenticators && authenticators.length > 0) return false;
  return !holdsOther;
}

/**
 * Whether a provider sign-in that vouches for `user`'s address may take the user over: only a
 * user that a feature's unconfirmed sign-up made (it holds at least one account that proves
 * nothing, and nothing else), so that an address squatted by a sign-up nobody confirmed does not
 * keep its owner out. A user that holds no account at all is not adopted (an Auth.js app's user
 * made by hand keeps refusing OAuth sign-ins by address, as it always did). The adapter must list
 * accounts (without `listAccountsByUserId` nothing tells what the user holds). Whoever made the
 * sign-up may have signed in with it (a feature that lets them must be able to end sessions,
 * which the adoption does), or through a Credentials provider, which Gatehouse does not see:
 * then the sessions must be endable too ({@link mayHoldUnendingSessions}).
 */
export async function providerMayAdopt(ctx: Context, user: AdapterUser): Promise<boolean> {
  const { listAccounts, listAuthenticators } = capabilitiesOf(ctx.config);
  if (!listAccounts || mayHoldUnendingSessions(ctx.config)) return false;
  const unproven = partsOf(ctx.config).provesNothing;
  const [accounts, authenticators] = await Promise.all([
    listAccounts(user.id),
    listAuthenticators?.(user.id),
  ]);
  if (authenticators && authenticators.length > 0) return false;
  return accounts.length > 0 && accounts.every(unproven);
}
