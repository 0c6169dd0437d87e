/**
 * What the configuration's adapter can do, named once (docs/architecture.md, "Adapter
 * capabilities"). Every method of the adapter contract is optional (./types/models.ts). This
 * module says which ones a configuration cannot do without (the required core, checked when the
 * configuration is read) and, for each optional one the code uses, what Gatehouse does without
 * it. Code that needs an optional method asks for its capability here; it never probes the
 * adapter itself.
 *
 * The configuration imports this module (for the core), so this module reads a resolved
 * configuration through {@link Configured} rather than importing its type.
 */
import type { SessionOptions } from "./types/config.js";
import type { Adapter, AdapterAccount } from "./types/models.js";
import type { ProviderConfig } from "./types/providers.js";

/** The parts of a resolved configuration (./config.ts `ResolvedConfig`) read here. */
export interface Configured {
  /** The configuration's adapter: each method wrapped, so each answers a promise. */
  adapter: Adapter | undefined;
  providers: readonly ProviderConfig[];
}

/** The methods a configuration cannot do without, by what it turns on. */
const core = {
  /** `session.strategy: "database"`: the session lives in the adapter. */
  databaseSessions: ["createSession", "getSessionAndUser", "updateSession", "deleteSession"],
  /** Database sessions with a Credentials provider: the session row names a stored user. */
  credentialsUsers: ["getUser"],
  oauth: ["getUser", "getUserByAccount", "getUserByEmail", "createUser", "linkAccount"],
  email: [
    "createVerificationToken",
    "useVerificationToken",
    "getUserByEmail",
    "getUserByAccount",
    "getUser",
    "createUser",
    "updateUser",
    "linkAccount",
  ],
  webauthn: [
    "createUser",
    "getUser",
    "getUserByEmail",
    "linkAccount",
    "getAccount",
    "getAuthenticator",
    "createAuthenticator",
    "listAuthenticatorsByUserId",
    "updateAuthenticatorCounter",
  ],
} as const satisfies Record<string, readonly (keyof Adapter)[]>;

/**
 * The methods of the required core that `adapter` lacks under this configuration, sorted: the
 * configuration is refused with them named (`MissingAdapterMethods`) before any request runs.
 */
export function missingAdapterMethods(
  adapter: Adapter,
  providers: readonly ProviderConfig[],
  strategy: SessionOptions["strategy"],
): (keyof Adapter)[] {
  const types = new Set(providers.map((p) => p.type));
  const database = strategy === "database";
  const needed = new Set<keyof Adapter>([
    ...(database ? core.databaseSessions : []),
    ...(database && types.has("credentials") ? core.credentialsUsers : []),
    ...(types.has("oauth") || types.has("oidc") ? core.oauth : []),
    ...(types.has("email") ? core.email : []),
    ...(types.has("webauthn") ? core.webauthn : []),
  ]);
  return [...needed].filter((m) => typeof adapter[m] !== "function").sort();
}

/** An adapter method as Gatehouse calls it: the configuration wraps each, so it answers a promise. */
type Method<K extends keyof Adapter> = (
  ...args: Parameters<NonNullable<Adapter[K]>>
) => Promise<Awaited<ReturnType<NonNullable<Adapter[K]>>>>;

/** Looking users up, and taking back one a failed sign-in created. */
export interface UserCapabilities {
  /**
   * `getUser`, in the core with OAuth, email and passkey providers, and with database sessions
   * and a Credentials provider. Without it, no JWT session is taken for a stored user's (no
   * path of such a configuration asks).
   */
  getUser: Method<"getUser"> | undefined;
  /**
   * `getUserByEmail`, in the core with OAuth, email and passkey providers. Without it, the
   * security log records a refused credentials sign-in for no user.
   */
  getUserByEmail: Method<"getUserByEmail"> | undefined;
  /**
   * `getUserByAccount`, in the core with OAuth and email providers. Without it (no adapter), a
   * provider account's user is the provider-scoped id ({@link accountOwnerId}).
   */
  getUserByAccount: Method<"getUserByAccount"> | undefined;
  /**
   * `deleteUser`: takes back the user a sign-up or a passkey registration created before it
   * failed. Without it, that user stays stored, with no account.
   */
  deleteUser: Method<"deleteUser"> | undefined;
}

/** Reading, listing and updating a user's provider accounts. */
export interface AccountCapabilities {
  /**
   * `getAccount`, in the core with passkey providers; `getAccessToken` requires it. Without it,
   * a repeat OAuth sign-in cannot tell whether its account was marked as needing a new sign-in,
   * and clears the mark from the user's sessions anyway.
   */
  getAccount: Method<"getAccount"> | undefined;
  /**
   * `listAccountsByUserId`; `getAccessToken` requires it. Without it, Gatehouse cannot tell which
   * accounts a user holds: any OAuth or OIDC provider of the configuration counts as one the user
   * may hold ({@link mayHoldOtherAccount}), and a federated sign-out finds its ID token hint only
   * in the session's JWT.
   */
  listAccounts: Method<"listAccountsByUserId"> | undefined;
  /**
   * `updateAccount`; `getAccessToken` requires it (refreshed tokens are stored with it). Without
   * it, a repeat OAuth sign-in does not store the new tokens it brought.
   */
  updateAccount: Method<"updateAccount"> | undefined;
  /**
   * `lockAccount`. Without it, refreshes of one account take turns within a process only; across
   * processes, `updateAccount`'s compare-and-swap keeps the newest token set.
   */
  lockAccount: Method<"lockAccount"> | undefined;
  /**
   * `unlinkAccount`: takes back the account a passkey registration linked before it failed.
   * Without it, that account stays stored.
   */
  unlinkAccount: Method<"unlinkAccount"> | undefined;
}

/** A user's database sessions. */
export interface SessionCapabilities {
  /** `getSessionAndUser`, in the core with database sessions, the one strategy that asks. */
  getSessionAndUser: Method<"getSessionAndUser"> | undefined;
  /** `updateSession`, in the core with database sessions, the one strategy that asks. */
  updateSession: Method<"updateSession"> | undefined;
  /** `deleteSession`, in the core with database sessions, the one strategy that asks. */
  deleteSession: Method<"deleteSession"> | undefined;
  /**
   * `listSessionsByUserId`. Without it, Gatehouse cannot see a user's database sessions: the
   * adapter gets no session metadata ({@link keepsSessionMetadata}); the sessions cannot be
   * listed or revoked (`MissingAdapterMethods`), marked as needing a new sign-in, or ended by a
   * back-channel logout naming one provider session; and an email link that proves the address
   * of a user nobody had proven cannot end the sessions that user may already have.
   */
  listSessions: Method<"listSessionsByUserId"> | undefined;
  /**
   * `deleteSessionsByUserId`. Without it, ending every session of a user deletes each listed one
   * in turn (`deleteSession`).
   */
  deleteSessions: Method<"deleteSessionsByUserId"> | undefined;
}

/** A user's passkeys. */
export interface PasskeyCapabilities {
  /**
   * `listAuthenticatorsByUserId`, in the core with passkey providers. Without it, a user counts
   * as holding no passkey.
   */
  listAuthenticators: Method<"listAuthenticatorsByUserId"> | undefined;
  /** `deleteAuthenticator`. Without it, a user cannot remove a passkey. */
  deleteAuthenticator: Method<"deleteAuthenticator"> | undefined;
}

/** Emailed sign-in codes. */
export interface CodeCapabilities {
  /**
   * `countVerificationTokenTry`. Without it, the tries of a code are counted in the rate-limit
   * store, which instances share only when they share the store (docs/email.md).
   */
  countVerificationTokenTry: Method<"countVerificationTokenTry"> | undefined;
}

/** Each optional method the code uses, bound to the configuration's adapter, or `undefined`. */
export interface Capabilities
  extends UserCapabilities,
    AccountCapabilities,
    SessionCapabilities,
    PasskeyCapabilities,
    CodeCapabilities {}

/** The adapter method behind each capability. */
export const capabilityMethods = {
  getUser: "getUser",
  getUserByEmail: "getUserByEmail",
  getUserByAccount: "getUserByAccount",
  deleteUser: "deleteUser",
  getAccount: "getAccount",
  listAccounts: "listAccountsByUserId",
  updateAccount: "updateAccount",
  lockAccount: "lockAccount",
  unlinkAccount: "unlinkAccount",
  getSessionAndUser: "getSessionAndUser",
  updateSession: "updateSession",
  deleteSession: "deleteSession",
  listSessions: "listSessionsByUserId",
  deleteSessions: "deleteSessionsByUserId",
  listAuthenticators: "listAuthenticatorsByUserId",
  deleteAuthenticator: "deleteAuthenticator",
  countVerificationTokenTry: "countVerificationTokenTry",
} as const satisfies { [C in keyof Capabilities]: keyof Adapter };

const cache = new WeakMap<Configured, Capabilities>();

/** The capabilities of a configuration's adapter, worked out on first use and cached. */
export function capabilitiesOf(config: Configured): Capabilities {
  let found = cache.get(config);
  if (!found) {
    const { adapter } = config;
    const entries = Object.entries(capabilityMethods).map(([name, method]) => {
      const fn = adapter?.[method] as ((...args: unknown[]) => unknown) | undefined;
      return [name, typeof fn === "function" ? fn.bind(adapter) : undefined];
    });
    found = Object.freeze(Object.fromEntries(entries)) as Capabilities;
    cache.set(config, found);
  }
  return found;
}

/** Provider types whose accounts only `listAccountsByUserId` shows. */
const unlistable = new Set(["oauth", "oidc"]);

/**
 * Whether the user may hold an account `own` does not accept. With `listAccounts`, whether any
 * of the user's accounts is one; without it Gatehouse cannot tell, so any OAuth or OIDC provider
 * of the configuration counts as an account the user may hold. A failed listing throws.
 */
export async function mayHoldOtherAccount(
  config: Configured,
  userId: string,
  own: (account: AdapterAccount) => boolean,
): Promise<boolean> {
  const accounts = await capabilitiesOf(config).listAccounts?.(userId);
  if (accounts) return !accounts.every(own);
  return config.providers.some((p) => unlistable.has(p.type));
}

/**
 * The id of the user behind a provider account: with `getUserByAccount`, its stored owner's
 * (`undefined` when nobody holds it); without it (no adapter), the provider-scoped id
 * `<provider>:<account id>`, which is what a sign-in without an adapter names the user.
 */
export async function accountOwnerId(
  config: Configured,
  key: Pick<AdapterAccount, "provider" | "providerAccountId">,
): Promise<string | undefined> {
  const { getUserByAccount } = capabilitiesOf(config);
  if (!getUserByAccount) return `${key.provider}:${key.providerAccountId}`;
  return (await getUserByAccount(key))?.id;
}

/**
 * Whether the adapter keeps session metadata (when, how and from which client a session began,
 * and when it was last seen): one that lists sessions has the fields to show them. One written
 * for Auth.js gets exactly the fields Auth.js sends, since an ORM could refuse any other.
 */
export function keepsSessionMetadata(config: Configured): boolean {
  return capabilitiesOf(config).listSessions !== undefined;
}
