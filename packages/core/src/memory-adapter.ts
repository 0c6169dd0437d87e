/**
 * An adapter that keeps every row in memory, for tests and prototypes.
 * @module
 */
import type {
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  CompleteAdapter,
  VerificationToken,
} from "./lib/types/models.js";

type AccountKey = Pick<AdapterAccount, "provider" | "providerAccountId">;
type TokenKey = Pick<VerificationToken, "identifier" | "token">;

/**
 * Direct reads of the stored rows, bypassing the adapter methods. Each returns a copy, or `null`.
 * The shape matches the `db` readers of `@gatehousejs/adapter-test`.
 */
export interface MemoryAdapterRows {
  user(id: string): AdapterUser | null;
  account(key: AccountKey): AdapterAccount | null;
  session(sessionToken: string): AdapterSession | null;
  verificationToken(key: TokenKey): VerificationToken | null;
  authenticator(credentialID: string): AdapterAuthenticator | null;
  /** How many rows of each kind are stored. */
  count(): {
    users: number;
    accounts: number;
    sessions: number;
    verificationTokens: number;
    authenticators: number;
  };
}

/** What {@link MemoryAdapter} returns: every contract method, asynchronous, plus test helpers. */
export interface InMemoryAdapter extends CompleteAdapter {
  /** Also deletes the user's sessions, accounts and authenticators. */
  deleteUser(userId: string): Promise<AdapterUser | null>;
  /** Resolves to `undefined` when no such account exists (the contract has no `null` here). */
  unlinkAccount(key: AccountKey): Promise<AdapterAccount | undefined>;
  deleteAuthenticator(credentialID: string): Promise<AdapterAuthenticator | null>;
  listSessionsByUserId(userId: string): Promise<AdapterSession[]>;
  deleteSessionsByUserId(userId: string, options?: { except?: string }): Promise<number>;
  /**
   * Merges the given fields into the stored account (`undefined` leaves a field alone; `userId`,
   * `provider` and `providerAccountId` never change). With `ifRefreshToken`, only when the
   * stored `refresh_token` still equals it (`null`: when none is stored); `null` otherwise.
   */
  updateAccount(
    patch: Partial<AdapterAccount> & AccountKey,
    options?: { ifRefreshToken?: string | null },
  ): Promise<AdapterAccount | null>;
  /** Counted beside the token, in one synchronous step; forgotten with the token. */
  countVerificationTokenTry(key: TokenKey, max: number): Promise<number | null>;
  /** A lock per account, held until released or until `ttlMs` has passed. */
  lockAccount(key: AccountKey, ttlMs: number): Promise<(() => Promise<void>) | null>;
  /** Reads stored rows directly, for assertions in tests. */
  readonly rows: MemoryAdapterRows;
  /** Deletes every row. */
  clear(): void;
}

// A JSON pair cannot collide the way a joined string could ("a:b" + "c" vs "a" + "b:c").
const accountKey = (key: AccountKey) => JSON.stringify([key.provider, key.providerAccountId]);
const tokenKey = (key: TokenKey) => JSON.stringify([key.identifier, key.token]);

// Rows go in and come out as structured clones: Dates stay Dates, and callers that mutate what
// they passed in or got back cannot change what is stored.
const copy = <T>(row: T): T => structuredClone(row);
const copyOrNull = <T>(row: T | undefined): T | null => (row === undefined ? null : copy(row));
// An update leaves a field alone when it is `undefined`, as ORMs do.
const defined = <T extends object>(patch: T): T =>
  copy(Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as T);

function fail(message: string): never {
  // Messages name the kind of row, never a key or token value: they end up in logs.
  throw new Error(`MemoryAdapter: ${message}`);
}

/**
 * Creates an adapter that stores users, accounts, sessions, verification tokens and WebAuthn
 * authenticators in memory. It behaves like a small relational database: ids, emails, provider
 * accounts, session tokens, verification tokens and credential ids are unique; accounts,
 * sessions and authenticators must belong to an existing user; deleting a user deletes what
 * belongs to it. Absent rows are `null`. Rows must be structured-cloneable. Nothing is persisted:
 * every call to `MemoryAdapter()` starts empty.
 *
 * @example
 * ```ts
 * import { MemoryAdapter } from "@gatehousejs/core/adapters/memory"
 *
 * const adapter = MemoryAdapter()
 * const response = await Auth(request, { adapter, session: { strategy: "database" }, ... })
 * expect(adapter.rows.count().sessions).toBe(1)
 * ```
 */
export function MemoryAdapter(): InMemoryAdapter {
  const users = new Map<string, AdapterUser>();
  const accounts = new Map<string, AdapterAccount>();
  const sessions = new Map<string, AdapterSession>();
  const tokens = new Map<string, VerificationToken>();
  /** Tries of a token's secret (sign-in codes), by token key; absent means none. */
  const tries = new Map<string, number>();
  const authenticators = new Map<string, AdapterAuthenticator>();
  /** Held account locks: key → [owner, expiry in ms]. */
  const locks = new Map<string, { owner: symbol; until: number }>();

  // An empty email means "no email" (SPEC: email defaults to ""): never unique, never found.
  const userByEmail = (email: string) =>
    email ? [...users.values()].find((u) => u.email === email) : undefined;
  const requireUser = (userId: string, what: string) => {
    if (!users.has(userId)) fail(`${what} refers to a user that does not exist`);
  };
  const deleteWhere = <T extends { userId: string }>(rows: Map<string, T>, userId: string) => {
    for (const [key, row] of rows) if (row.userId === userId) rows.delete(key);
  };

  const rows: MemoryAdapterRows = {
    user: (id) => copyOrNull(users.get(id)),
    account: (key) => copyOrNull(accounts.get(accountKey(key))),
    session: (sessionToken) => copyOrNull(sessions.get(sessionToken)),
    verificationToken: (key) => copyOrNull(tokens.get(tokenKey(key))),
    authenticator: (credentialID) => copyOrNull(authenticators.get(credentialID)),
    count: () => ({
      users: users.size,
      accounts: accounts.size,
      sessions: sessions.size,
      verificationTokens: tokens.size,
      authenticators: authenticators.size,
    }),
  };

  return {
    rows,
    clear() {
      for (const table of [users, accounts, sessions, tokens, authenticators]) table.clear();
      tries.clear();
      locks.clear();
    },

    async createUser(user) {
      if (users.has(user.id)) fail("a user with this id already exists");
      if (userByEmail(user.email)) fail("a user with this email already exists");
      users.set(user.id, copy(user));
      return copy(user);
    },
    async getUser(id) {
      return rows.user(id);
    },
    async getUserByEmail(email) {
      return copyOrNull(userByEmail(email));
    },
    async getUserByAccount(key) {
      const account = accounts.get(accountKey(key));
      return account ? rows.user(account.userId) : null;
    },
    async updateUser(patch) {
      const current = users.get(patch.id) ?? fail("no user with this id");
      const owner = patch.email === undefined ? undefined : userByEmail(patch.email);
      if (owner && owner.id !== patch.id) fail("another user already has this email");
      const updated = { ...current, ...defined(patch) };
      users.set(updated.id, updated);
      return copy(updated);
    },
    async deleteUser(userId) {
      const user = users.get(userId);
      if (!user) return null;
      users.delete(userId);
      deleteWhere(sessions, userId);
      deleteWhere(accounts, userId);
      deleteWhere(authenticators, userId);
      return copy(user);
    },

    async linkAccount(account) {
      requireUser(account.userId, "the account");
      const key = accountKey(account);
      if (accounts.has(key)) fail("this provider account is already linked (unique constraint)");
      accounts.set(key, copy(account));
      return copy(account);
    },
    async unlinkAccount(key) {
      const account = accounts.get(accountKey(key));
      if (!account) return undefined;
      accounts.delete(accountKey(key));
      return copy(account);
    },
    async getAccount(providerAccountId, provider) {
      return rows.account({ provider, providerAccountId });
    },
    async listAccountsByUserId(userId) {
      return [...accounts.values()].filter((a) => a.userId === userId).map(copy);
    },
    async updateAccount(patch, options) {
      const key = accountKey(patch);
      const current = accounts.get(key);
      if (!current) return null;
      if (options && options.ifRefreshToken !== undefined) {
        const stored = current.refresh_token ?? null;
        if (stored !== options.ifRefreshToken) return null;
      }
      const updated: AdapterAccount = {
        ...current,
        ...defined(patch),
        userId: current.userId,
        provider: current.provider,
        providerAccountId: current.providerAccountId,
      };
      // `error: null` clears the refresh marker, as a column set to NULL reads back absent.
      if (patch.error === null) delete updated.error;
      accounts.set(key, updated);
      return copy(updated);
    },
    async lockAccount(key, ttlMs) {
      const id = accountKey(key);
      const now = Date.now();
      const held = locks.get(id);
      if (held && held.until > now) return null;
      const owner = Symbol("lock");
      locks.set(id, { owner, until: now + ttlMs });
      return async () => {
        // Releasing a lock that expired and was taken by another holder leaves theirs alone.
        if (locks.get(id)?.owner === owner) locks.delete(id);
      };
    },

    async createSession(session) {
      requireUser(session.userId, "the session");
      if (sessions.has(session.sessionToken)) fail("a session with this token already exists");
      sessions.set(session.sessionToken, copy(session));
      return copy(session);
    },
    async getSessionAndUser(sessionToken) {
      const session = sessions.get(sessionToken);
      const user = session && users.get(session.userId);
      if (!session || !user) return null;
      return { session: copy(session), user: copy(user) };
    },
    async updateSession(patch) {
      const current = sessions.get(patch.sessionToken);
      if (!current) return null;
      if (patch.userId !== undefined) requireUser(patch.userId, "the session");
      const updated = { ...current, ...defined(patch) };
      // `error: null` clears the refresh mark, as a column set to NULL reads back absent.
      if (updated.error === null) delete updated.error;
      sessions.set(updated.sessionToken, updated);
      return copy(updated);
    },
    async deleteSession(sessionToken) {
      const session = sessions.get(sessionToken);
      sessions.delete(sessionToken);
      return copyOrNull(session);
    },
    async listSessionsByUserId(userId) {
      return [...sessions.values()].filter((s) => s.userId === userId).map(copy);
    },
    async deleteSessionsByUserId(userId, options) {
      let deleted = 0;
      for (const [token, session] of sessions) {
        if (session.userId !== userId || token === options?.except) continue;
        sessions.delete(token);
        deleted++;
      }
      return deleted;
    },

    async createVerificationToken(verificationToken) {
      const key = tokenKey(verificationToken);
      if (tokens.has(key)) fail("this verification token already exists");
      tokens.set(key, copy(verificationToken));
      return copy(verificationToken);
    },
    async useVerificationToken(key) {
      // Read and delete in one synchronous step, so concurrent callers cannot both get it.
      const token = tokens.get(tokenKey(key));
      tokens.delete(tokenKey(key));
      tries.delete(tokenKey(key));
      return copyOrNull(token);
    },
    async countVerificationTokenTry(key, max) {
      // Read, compare and write in one synchronous step: no other call runs in between.
      const id = tokenKey(key);
      if (!tokens.has(id)) return null;
      const counted = (tries.get(id) ?? 0) + 1;
      if (counted > max) return null;
      tries.set(id, counted);
      return counted;
    },

    async createAuthenticator(authenticator) {
      requireUser(authenticator.userId, "the authenticator");
      if (authenticators.has(authenticator.credentialID)) {
        fail("an authenticator with this credential id already exists");
      }
      authenticators.set(authenticator.credentialID, copy(authenticator));
      return copy(authenticator);
    },
    async getAuthenticator(credentialID) {
      return rows.authenticator(credentialID);
    },
    async listAuthenticatorsByUserId(userId) {
      return [...authenticators.values()].filter((a) => a.userId === userId).map(copy);
    },
    async updateAuthenticatorCounter(credentialID, newCounter) {
      const current = authenticators.get(credentialID) ?? fail("no authenticator with this id");
      const updated = { ...current, counter: newCounter };
      authenticators.set(credentialID, updated);
      return copy(updated);
    },
    async deleteAuthenticator(credentialID) {
      const current = authenticators.get(credentialID);
      if (!current) return null;
      authenticators.delete(credentialID);
      return copy(current);
    },
  };
}
