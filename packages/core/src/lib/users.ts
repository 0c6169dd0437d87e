/**
 * User and account resolution, shared by every sign-in that stores users: find the user behind
 * a provider account, link the account to the signed-in user, or create a user; refuse when the
 * account or its email belongs to someone else.
 *
 * | account known? | signed in? | result |
 * |---|---|---|
 * | yes, same user | yes | keep the session |
 * | yes, other user | yes | refuse (`notLinked`) |
 * | yes | no | sign in as the owner |
 * | no | yes | link the account to the signed-in user |
 * | no | no, a user has the address | link only with `allowDangerousEmailAccountLinking` and only when that user's address is proven (`emailVerified`), else refuse |
 * | no | no, address unknown, or the sign-in has none | create the user and link the account (new user) |
 *
 * "The address" is the sign-in's {@link EmailClaim}: an email that is not an address, or that the
 * provider says it did not verify, is never used to find, link or store users (docs/security.md,
 * "Linking and sign-up rules").
 *
 * Concurrent first sign-ins of one account end with one user and one account: the loser of a
 * unique-constraint race removes what it wrote and signs in as the winner.
 */
import { capabilitiesOf } from "./capabilities.js";
import type { Context } from "./context.js";
import { randomUUID } from "./crypto/hash.js";
import { normalizeEmail } from "./email/normalize.js";
import { AdapterError, type AuthError } from "./errors.js";
import { announce } from "./moments.js";
import { signedInUser } from "./session/index.js";
import type {
  Account,
  Adapter,
  AdapterAccount,
  AdapterAccountType,
  AdapterUser,
  Profile,
  User,
} from "./types/models.js";

/** What a sign-in says about an email address. */
export interface EmailClaim {
  /** The address to find, link and store the user by; `null` when the sign-in has none to use. */
  address: string | null;
  /** The provider vouched for the address (`email_verified: true`). */
  verified: boolean;
}

/** `email_verified` as providers send it: a boolean, or (some userinfo endpoints) a string. */
function verification(profile: Profile | undefined): boolean | undefined {
  const claim: unknown = profile?.email_verified;
  if (claim === true || claim === "true") return true;
  if (claim === false || claim === "false") return false;
  return undefined;
}

/**
 * Whether `value` is an email address as Gatehouse stores one: what the email provider's
 * normaliser accepts, already in its normal form. A value that normalises to something else
 * (full-width characters, say) is not taken as the address it resembles.
 */
export function isAddress(value: string): boolean {
  try {
    return normalizeEmail(value) === value;
  } catch {
    return false;
  }
}

/**
 * The claim a sign-in makes on `email`: an address only when it is one and the profile does not
 * say `email_verified: false`; `fromEmailField: false` (a username in the email field, say)
 * makes it no address at all.
 */
export function emailClaim(email: unknown, profile?: Profile, fromEmailField = true): EmailClaim {
  const said = verification(profile);
  const usable = fromEmailField && said !== false && typeof email === "string" && isAddress(email);
  return usable ? { address: email, verified: said === true } : { address: null, verified: false };
}

/** What a sign-in brings to resolution. */
export interface ResolveParams {
  /** The user as the provider describes them; `id` is ignored. */
  user: User;
  /** The provider account, without `userId`. */
  account: Account & { type: AdapterAccountType };
  profile?: Profile;
  /** The sign-in's claim on an address. Default: {@link emailClaim} of `user.email` and `profile`. */
  claim?: EmailClaim;
  allowDangerousEmailAccountLinking?: boolean;
  /** The error that refuses a link (`OAuthAccountNotLinked`, or `AccountNotLinked` for passkeys). */
  notLinked: (message: string) => AuthError;
  /** The account's owner when the caller already looked it up (`null`: none), saving a query. */
  owner?: AdapterUser | null;
  /**
   * Takes over `user`, who holds the sign-in's address without having proven it, when the
   * sign-in vouches for the address and the method says it may (./sign-in/adopt.ts): proves the
   * address on the user and ends its sessions. Answers the adopted user (and, under the JWT
   * strategy, the `sid` the new session takes), or `undefined` to refuse as without it.
   */
  adoptUnproven?: (user: AdapterUser) => Promise<Adopted | undefined>;
}

/** A user a sign-in took over: its address now proven. */
export interface Adopted {
  user: AdapterUser;
  /** JWT strategy: the `sid` the revocation of the user's sessions spared for the new one. */
  sessionId?: string;
}

/** The resolved user, and whether it was created by this sign-in. */
export interface Resolution {
  user: AdapterUser;
  isNewUser: boolean;
  /** When the sign-in adopted the user: the `sid` its new session takes. */
  sessionId?: string;
}

type Store = Required<
  Pick<Adapter, "getUserByAccount" | "getUserByEmail" | "createUser" | "linkAccount">
> &
  Adapter;

/**
 * The owner of the account, waiting briefly for a concurrent sign-in of the same account that
 * has created its user but not yet linked the account. Only refusal and conflict paths call
 * this, so a normal sign-in never waits.
 */
async function ownerAfterRace(store: Store, account: ResolveParams["account"]) {
  const key = { provider: account.provider, providerAccountId: account.providerAccountId };
  for (const delay of [0, 10, 25, 50, 100, 200]) {
    if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
    const owner = await store.getUserByAccount(key);
    if (owner) return owner;
  }
  return null;
}

async function link(ctx: Context, store: Store, user: AdapterUser, params: ResolveParams) {
  const account: AdapterAccount = { ...params.account, userId: user.id };
  await store.linkAccount(account);
  await announce(ctx, "accountLinked", { user, account, profile: params.user, isNewUser: false });
}

async function create(
  ctx: Context,
  store: Store,
  params: ResolveParams,
  claim: EmailClaim,
): Promise<Resolution> {
  const { account } = params;
  const owner = () => ownerAfterRace(store, account);
  let user: AdapterUser;
  try {
    user = await store.createUser({
      ...params.user,
      id: randomUUID(),
      // Only an address the sign-in may use is stored: anything else would block its real
      // owner (addresses are unique) and be found by later sign-ins.
      email: claim.address ?? "",
      emailVerified: claim.address && claim.verified ? new Date() : null,
    });
  } catch (error) {
    const winner = await owner();
    if (winner) return { user: winner, isNewUser: false };
    throw error;
  }
  try {
    await store.linkAccount({ ...account, userId: user.id });
  } catch (error) {
    const winner = await owner();
    // A concurrent sign-in of this account, linking by address, may have linked it to the user
    // just created here: the account is ours, keep the user.
    if (winner?.id === user.id) {
      await announce(ctx, "userCreated", { user });
      return { user, isNewUser: true };
    }
    // Nothing half-written: take the user back out; a concurrent sign-in won, or it failed.
    await Promise.resolve(capabilitiesOf(ctx.config).deleteUser?.(user.id)).catch((cause) =>
      ctx.config.logger.error(cause),
    );
    if (winner) return { user: winner, isNewUser: false };
    throw error;
  }
  await announce(ctx, "userCreated", { user });
  await announce(ctx, "accountLinked", {
    user,
    account: { ...account, userId: user.id },
    profile: params.user,
    isNewUser: true,
  });
  return { user, isNewUser: true };
}

/**
 * A new OAuth sign-in of a linked account brings a new token set: store it (and clear a
 * `RefreshTokenError` mark), so `getAccessToken` works again after the user signed back in.
 * Only with an adapter that has `updateAccount`; a failure is logged, never the sign-in's.
 */
async function refreshStoredTokens(ctx: Context, account: ResolveParams["account"]): Promise<void> {
  const { getAccount, updateAccount } = capabilitiesOf(ctx.config);
  if (!updateAccount || (account.type !== "oauth" && account.type !== "oidc")) return;
  if (!account.access_token && !account.refresh_token && !account.id_token) return;
  // Only what this sign-in brought: a provider that sends no new refresh token on a repeat
  // sign-in (Google without `prompt=consent`) must not erase the stored one.
  const fresh = Object.fromEntries(
    Object.entries(account).filter(([, value]) => value !== undefined && value !== null),
  ) as ResolveParams["account"];
  // A new access token without a lifetime must not inherit the old token's (past) expiry.
  const lifetime = fresh.access_token && fresh.expires_at === undefined ? { expires_at: null } : {};
  try {
    const before = await getAccount?.(account.providerAccountId, account.provider);
    const updated = await updateAccount({
      ...fresh,
      ...lifetime,
      error: null,
    } as ResolveParams["account"]);
    // The user's other sessions stop saying that a new sign-in is needed (docs/tokens.md).
    if (updated && (before === undefined || before?.error))
      await clearSessionMarks(ctx, updated.userId);
  } catch (cause) {
    ctx.config.logger.error(
      new AdapterError("The new tokens of a linked account could not be stored", { cause }),
    );
  }
}

/** Database strategy: clears the `RefreshTokenError` mark of the user's sessions. */
async function clearSessionMarks(ctx: Context, userId: string): Promise<void> {
  if (ctx.config.session.strategy !== "database") return;
  const { listSessions, updateSession } = capabilitiesOf(ctx.config);
  if (!listSessions || !updateSession) return;
  const sessions = await listSessions(userId);
  await Promise.all(
    sessions
      .filter((session) => session.error)
      .map((session) => updateSession({ sessionToken: session.sessionToken, error: null })),
  );
}

/** Resolves the user of a provider sign-in, following the linking table above. */
export async function resolveUser(ctx: Context, params: ResolveParams): Promise<Resolution> {
  const store = ctx.config.adapter as Store;
  const { account } = params;
  const [current, owner] = await Promise.all([
    signedInUser(ctx),
    params.owner !== undefined
      ? params.owner
      : store.getUserByAccount({
          provider: account.provider,
          providerAccountId: account.providerAccountId,
        }),
  ]);
  if (owner) {
    if (current && current.id !== owner.id) {
      throw params.notLinked("This account is already linked to another user");
    }
    await refreshStoredTokens(ctx, account);
    return { user: owner, isNewUser: false };
  }
  if (current) {
    await link(ctx, store, current, params);
    return { user: current, isNewUser: false };
  }
  const claim = params.claim ?? emailClaim(params.user.email, params.profile);
  const byEmail = claim.address ? await store.getUserByEmail(claim.address) : null;
  if (byEmail && !byEmail.emailVerified && claim.verified && params.adoptUnproven) {
    // A user nobody proved the address of, made by a sign-up nobody confirmed: the provider's
    // proof of the address takes it over, as it would have created it (./sign-in/adopt.ts).
    const adopted = await params.adoptUnproven(byEmail);
    if (adopted) {
      await link(ctx, store, adopted.user, params);
      const { sessionId } = adopted;
      return { user: adopted.user, isNewUser: false, ...(sessionId ? { sessionId } : {}) };
    }
  }
  if (byEmail) {
    // Linking by address needs the provider's trust (the flag) and a user whose claim on the
    // address is proven: an unproven claim must never end up owning the proven account.
    if (!params.allowDangerousEmailAccountLinking || !byEmail.emailVerified) {
      // The "other" user may be a concurrent first sign-in of this very account, between
      // creating its user and linking the account.
      const winner = await ownerAfterRace(store, account);
      if (winner) return { user: winner, isNewUser: false };
      throw params.notLinked(
        params.allowDangerousEmailAccountLinking
          ? "Another account already uses this email address, and its owner never proved it"
          : "Another account already uses this email address",
      );
    }
    try {
      await link(ctx, store, byEmail, params);
    } catch (error) {
      // A concurrent first sign-in of this same account may have linked it to this user first.
      const winner = await ownerAfterRace(store, account);
      if (winner?.id === byEmail.id) return { user: winner, isNewUser: false };
      throw error;
    }
    return { user: byEmail, isNewUser: false };
  }
  return create(ctx, store, params, claim);
}
