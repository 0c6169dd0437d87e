/**
 * Storing a newly registered passkey. A registration only ever adds a passkey to the signed-in
 * user's account or creates a new passkey-only user (no email address); it never resolves to
 * an existing account, so a credential id that is already stored is refused before any write,
 * whatever the adapter would do with the duplicate.
 */
import { capabilitiesOf } from "../../capabilities.js";
import type { Context } from "../../context.js";
import { randomUUID } from "../../crypto/hash.js";
import { WebAuthnVerificationError } from "../../errors.js";
import { announce } from "../../moments.js";
import type {
  Adapter,
  AdapterAccount,
  AdapterAuthenticator,
  AdapterUser,
} from "../../types/models.js";

type Store = Required<Adapter>;

/** Whether the credential id is stored already, as an authenticator or as a WebAuthn account. */
async function taken(store: Store, providerId: string, credentialID: string): Promise<boolean> {
  const [authenticator, account] = await Promise.all([
    store.getAuthenticator(credentialID),
    store.getAccount(credentialID, providerId),
  ]);
  return authenticator !== null || account !== null;
}

/** Refuses a registration whose credential id is already stored (`WebAuthnVerificationError`). */
export async function refuseTakenCredential(
  ctx: Context,
  providerId: string,
  credentialID: string,
): Promise<void> {
  if (await taken(ctx.config.adapter as Store, providerId, credentialID)) {
    throw new WebAuthnVerificationError("This passkey is already registered");
  }
}

/** Runs `undo` for a failed registration, logging (never throwing) when it fails in turn. */
async function undo(ctx: Context, step: () => unknown): Promise<void> {
  try {
    await step();
  } catch (cause) {
    ctx.config.logger.error(cause instanceof Error ? cause : new Error(String(cause)));
  }
}

/**
 * Writes the registration: a new user without an email when nobody is signed in, the WebAuthn
 * account, then the authenticator. A failed write takes back what this registration wrote; a
 * failure because a concurrent registration stored the same credential id first is refused like
 * a taken id.
 */
export async function storePasskey(
  ctx: Context,
  current: AdapterUser | null,
  account: Pick<AdapterAccount, "provider" | "providerAccountId"> & { type: "webauthn" },
  authenticator: Omit<AdapterAuthenticator, "userId">,
): Promise<{ user: AdapterUser; account: AdapterAccount; isNewUser: boolean }> {
  const store = ctx.config.adapter as Store;
  const isNewUser = current === null;
  const user =
    current ?? (await store.createUser({ id: randomUUID(), email: "", emailVerified: null }));
  const linked: AdapterAccount = { ...account, userId: user.id };
  const rollBack = async (error: unknown, accountWritten: boolean): Promise<never> => {
    const { unlinkAccount, deleteUser } = capabilitiesOf(ctx.config);
    if (accountWritten) await undo(ctx, () => unlinkAccount?.(linked));
    if (isNewUser) await undo(ctx, () => deleteUser?.(user.id));
    const raced = accountWritten
      ? (await store.getAuthenticator(authenticator.credentialID)) !== null
      : await taken(store, account.provider, account.providerAccountId);
    if (raced) {
      throw new WebAuthnVerificationError("This passkey is already registered", { cause: error });
    }
    throw error;
  };
  try {
    await store.linkAccount(linked);
  } catch (error) {
    return rollBack(error, false);
  }
  try {
    await store.createAuthenticator({ ...authenticator, userId: user.id });
  } catch (error) {
    return rollBack(error, true);
  }
  if (isNewUser) await announce(ctx, "userCreated", { user });
  await announce(ctx, "accountLinked", { user, account: linked, profile: user, isNewUser });
  return { user, account: linked, isNewUser };
}
