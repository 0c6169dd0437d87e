/**
 * The adapter: every method works in its own fork of the EntityManager and returns plain rows.
 */
import { randomUUID } from "node:crypto";
import type {
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  CompleteAdapter,
} from "@gatehousejs/core/adapters";
import type {
  EntityManager,
  EntityMetadata,
  EntityName,
  RequiredEntityData,
} from "@mikro-orm/core";
import { UniqueConstraintViolationException } from "@mikro-orm/core";
import { EmailKey } from "./columns.js";
import {
  type Account,
  type Authenticator,
  gatehouseEntities,
  type Session,
  type User,
  type VerificationToken,
} from "./entities.js";
import { entityData, plainRow } from "./rows.js";
import {
  type MikroOrmVerificationTokenMethods,
  verificationTokenMethods,
} from "./verification-tokens.js";

type AccountKey = Pick<AdapterAccount, "provider" | "providerAccountId">;

/** Anything with an EntityManager: a `MikroORM` instance of any driver. */
export interface MikroOrmLike {
  readonly em: EntityManager;
}

/**
 * The entities the adapter reads and writes, each defaulting to {@link gatehouseEntities}'s:
 * usually the result of `defineGatehouseEntities()`.
 */
export interface MikroOrmAdapterEntities<
  U extends User = User,
  A extends Account = Account,
  S extends Session = Session,
  V extends VerificationToken = VerificationToken,
  W extends Authenticator = Authenticator,
> {
  User?: EntityName<U>;
  Account?: EntityName<A>;
  Session?: EntityName<S>;
  VerificationToken?: EntityName<V>;
  Authenticator?: EntityName<W>;
}

/** Options of {@link MikroOrmAdapter}. */
export interface MikroOrmAdapterOptions<
  U extends User = User,
  A extends Account = Account,
  S extends Session = Session,
  V extends VerificationToken = VerificationToken,
  W extends Authenticator = Authenticator,
> {
  /** Extended entities, as built by `defineGatehouseEntities()`, instead of the default ones. */
  entities?: MikroOrmAdapterEntities<U, A, S, V, W>;
}

/** What {@link MikroOrmAdapter} returns: every method of the contract, asynchronous. */
export interface MikroOrmAdapterMethods
  extends Omit<CompleteAdapter, "createVerificationToken">,
    MikroOrmVerificationTokenMethods {
  /**
   * `""` (no email) is never found. On MySQL and MariaDB it reads the unique `email_key` column,
   * which compares byte by byte (`email`'s collation ignores trailing spaces).
   */
  getUserByEmail(email: string): Promise<AdapterUser | null>;
  /** One query, joining the accounts. */
  getUserByAccount(key: AccountKey): Promise<AdapterUser | null>;
  /** Throws when no user has this id. */
  updateUser(user: Partial<AdapterUser> & Pick<AdapterUser, "id">): Promise<AdapterUser>;
  /** Deletes the user with its sessions, accounts and authenticators, in one transaction. */
  deleteUser(userId: string): Promise<AdapterUser | null>;
  /** Throws (a unique constraint violation) when the provider account is already linked. */
  linkAccount(account: AdapterAccount): Promise<AdapterAccount>;
  /**
   * One `UPDATE` of the columns given (never the account's identity or owner), then a read. With
   * `ifRefreshToken` the update's condition includes the stored `refresh_token` (`null`: none
   * stored), and `null` is returned when it did not match; `null` also for an unknown account.
   */
  updateAccount(
    account: Partial<AdapterAccount> & AccountKey,
    options?: { ifRefreshToken?: string | null },
  ): Promise<AdapterAccount | null>;
  /**
   * A row in `account_locks` (the `AccountLock` entity, in `gatehouseEntities.list`): inserted
   * when absent, taken over by one conditional `UPDATE` when expired (by this process's clock),
   * `null` while another holder has it. The release deletes the row only while it is still this
   * holder's.
   */
  lockAccount(key: AccountKey, ttlMs: number): Promise<(() => Promise<void>) | null>;
  /** One query on the indexed `userId` column, ordered by provider and account id. */
  listAccountsByUserId(userId: string): Promise<AdapterAccount[]>;
  /** One query, joining the user. */
  getSessionAndUser(
    sessionToken: string,
  ): Promise<{ session: AdapterSession; user: AdapterUser } | null>;
  /** `null` for an unknown token; never creates a session. */
  updateSession(
    session: Partial<AdapterSession> & Pick<AdapterSession, "sessionToken">,
  ): Promise<AdapterSession | null>;
  /** One query on the indexed `userId` column; oldest first (unknown creation times last). */
  listSessionsByUserId(userId: string): Promise<AdapterSession[]>;
  /** One `DELETE`; returns how many sessions it deleted. */
  deleteSessionsByUserId(userId: string, options?: { except?: string }): Promise<number>;
  /** Throws when no authenticator has this credential id. */
  updateAuthenticatorCounter(
    credentialID: string,
    newCounter: number,
  ): Promise<AdapterAuthenticator>;
  /**
   * Reads the authenticator, then deletes it by its credential id; only the caller whose `DELETE`
   * removed the row gets it, so of concurrent deletes one returns it and the others `null`.
   * `null` for an unknown credential id. The passkey's `webauthn` account stays; remove it with
   * `unlinkAccount`.
   */
  deleteAuthenticator(credentialID: string): Promise<AdapterAuthenticator | null>;
}

/** Oldest first; a session from before session records (no `createdAt`) last. */
const byCreation = (a: AdapterSession, b: AdapterSession) =>
  (a.createdAt?.getTime() ?? Number.POSITIVE_INFINITY) -
    (b.createdAt?.getTime() ?? Number.POSITIVE_INFINITY) || 0;

/** A refusal of the adapter's own (no such row); its message is safe to log as it is. */
class Refusal extends Error {
  override name = "MikroOrmAdapterError";
}

function refuse(message: string): never {
  // Messages name the kind of row, never a key or a token: they end up in logs.
  throw new Refusal(`MikroOrmAdapter: ${message}`);
}

/**
 * Creates a Gatehouse adapter over a MikroORM instance (PostgreSQL, SQLite, or any SQL driver
 * of MikroORM 6.6 or 7). Register the entities (`gatehouseEntities.list`, or the `list` of your
 * `defineGatehouseEntities()`) in the ORM, and create their tables with
 * `orm.schema.createSchema()` or a migration.
 *
 * Every call works in its own fork of `orm.em`, so the adapter is safe to share between
 * requests, and returns plain objects (not managed entities): Dates as `Date`, `expires_at` as a
 * number, `null` for an absent row. Database errors are thrown, wrapped in an `Error` whose
 * message names the method and the error class only (MikroORM's own messages quote the SQL with
 * its parameters, tokens included); the original error is its `cause`.
 *
 * Pass a function instead of the ORM when the ORM is created later (for example, after an
 * `await MikroORM.init()` elsewhere): it is called on each adapter call.
 *
 * @example
 * ```ts
 * import { MikroORM } from "@mikro-orm/postgresql"
 * import { MikroOrmAdapter, gatehouseEntities } from "@gatehousejs/mikro-orm-adapter"
 *
 * const orm = await MikroORM.init({
 *   clientUrl: process.env.DATABASE_URL,
 *   entities: [...gatehouseEntities.list],
 * })
 * const response = await Auth(request, { adapter: MikroOrmAdapter(orm), ... })
 * ```
 */
export function MikroOrmAdapter<
  U extends User = User,
  A extends Account = Account,
  S extends Session = Session,
  V extends VerificationToken = VerificationToken,
  W extends Authenticator = Authenticator,
>(
  orm: MikroOrmLike | (() => MikroOrmLike),
  options: MikroOrmAdapterOptions<U, A, S, V, W> = {},
): MikroOrmAdapterMethods {
  const getOrm = typeof orm === "function" ? orm : () => orm;
  // Subclass entities are read and written through their base class's columns and relations.
  const entities = {
    ...gatehouseEntities,
    ...options.entities,
  } as unknown as MikroOrmAdapterEntities & typeof gatehouseEntities;
  const UserEntity = entities.User;
  const AccountEntity = entities.Account;
  const SessionEntity = entities.Session;
  const TokenEntity = entities.VerificationToken;
  const AuthenticatorEntity = entities.Authenticator;
  const LockEntity = entities.AccountLock;

  async function run<T>(method: string, work: (em: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await work(getOrm().em.fork());
    } catch (cause) {
      if (cause instanceof Refusal) throw cause;
      const kind = cause instanceof Error ? cause.name : typeof cause;
      // MikroORM's messages quote the SQL with its parameters (session tokens, emails) inlined:
      // keep only the exception's class and the database's error code, never the message.
      const code = (cause as { code?: unknown } | null)?.code;
      throw new Error(`MikroOrmAdapter.${method} failed (${kind})`, {
        cause: { name: kind, ...(typeof code === "string" ? { code } : {}) },
      });
    }
  }

  // Converters for one entity, from its metadata.
  const rowsOf = <T>(meta: EntityMetadata, dropNull = false) => ({
    data: (input: object) => entityData(meta, input),
    row: (managed: object) => plainRow<T>(meta, managed, dropNull),
    maybe: (managed: object | null) => (managed ? plainRow<T>(meta, managed, dropNull) : null),
  });
  const users = (em: EntityManager) => rowsOf<AdapterUser>(em.getMetadata(UserEntity));
  const accounts = (em: EntityManager) =>
    rowsOf<AdapterAccount>(em.getMetadata(AccountEntity), true);
  // A session field that holds nothing is left out (a row from before session records, a
  // session created without metadata, an added column never written), as the other adapters do
  // and as Auth.js's contract reads a session: no \`null\` fields.
  const sessions = (em: EntityManager) =>
    rowsOf<AdapterSession>(em.getMetadata(SessionEntity), true);
  const authenticators = (em: EntityManager) =>
    rowsOf<AdapterAuthenticator>(em.getMetadata(AuthenticatorEntity));

  // Inserts one row (data checked by `entityData` against the entity's own metadata) and
  // returns it as a plain row.
  async function insert<T extends object, R>(
    em: EntityManager,
    entity: EntityName<T>,
    rows: { data(input: object): object; row(managed: object): R },
    input: object,
  ): Promise<R> {
    const created = em.create(entity, rows.data(input) as RequiredEntityData<T>);
    await em.persist(created).flush();
    return rows.row(created);
  }

  return {
    createUser: (user) => run("createUser", (em) => insert(em, UserEntity, users(em), user)),
    getUser: (id) =>
      run("getUser", async (em) => users(em).maybe(await em.findOne(UserEntity, { id }))),
    getUserByEmail: (email) =>
      run("getUserByEmail", async (em) => {
        if (!email) return null;
        const key = em.getMetadata(UserEntity).properties.emailKey;
        const where =
          key?.customType instanceof EmailKey && key.persist !== false
            ? { emailKey: email }
            : { email };
        return users(em).maybe(await em.findOne(UserEntity, where));
      }),
    getUserByAccount: ({ provider, providerAccountId }) =>
      run("getUserByAccount", async (em) => {
        const where = { accounts: { provider, providerAccountId } };
        return users(em).maybe(await em.findOne(UserEntity, where));
      }),
    updateUser: (patch) =>
      run("updateUser", async (em) => {
        const rows = users(em);
        const user =
          (await em.findOne(UserEntity, { id: patch.id })) ?? refuse("no user with this id");
        const { id: _id, ...changes } = rows.data(patch);
        em.assign(user, changes);
        await em.flush();
        return rows.row(user);
      }),
    deleteUser: (userId) =>
      run("deleteUser", async (em) => {
        const user = await em.findOne(UserEntity, { id: userId });
        if (!user) return null;
        // Explicit deletes rather than trusting ON DELETE CASCADE, which a database may not
        // enforce (SQLite without foreign keys, tables made by hand).
        await em.transactional(async (tx) => {
          await tx.nativeDelete(SessionEntity, { user: userId });
          await tx.nativeDelete(AccountEntity, { user: userId });
          await tx.nativeDelete(AuthenticatorEntity, { user: userId });
          await tx.nativeDelete(UserEntity, { id: userId });
        });
        return users(em).row(user);
      }),

    linkAccount: (account) =>
      run("linkAccount", (em) => insert(em, AccountEntity, accounts(em), account)),
    unlinkAccount: ({ provider, providerAccountId }) =>
      run("unlinkAccount", async (em) => {
        const account = await em.findOne(AccountEntity, { provider, providerAccountId });
        if (!account) return undefined;
        await em.nativeDelete(AccountEntity, { id: account.id });
        return accounts(em).row(account);
      }),
    getAccount: (providerAccountId, provider) =>
      run("getAccount", async (em) =>
        accounts(em).maybe(await em.findOne(AccountEntity, { provider, providerAccountId })),
      ),
    updateAccount: (patch, options = {}) =>
      run("updateAccount", async (em) => {
        const rows = accounts(em);
        const key = { provider: patch.provider, providerAccountId: patch.providerAccountId };
        const data = rows.data(patch) as Record<string, unknown>;
        for (const fixed of ["id", "user", "type", "provider", "providerAccountId"]) {
          delete data[fixed];
        }
        const where =
          options.ifRefreshToken === undefined
            ? key
            : { ...key, refresh_token: options.ifRefreshToken };
        if (Object.keys(data).length === 0) {
          return rows.maybe(await em.findOne(AccountEntity, where));
        }
        // One statement: of concurrent updates over one refresh token, one matches the row.
        const changed = await em.nativeUpdate(AccountEntity, where, data);
        if (changed === 0) return null;
        return rows.maybe(await em.findOne(AccountEntity, key));
      }),
    lockAccount: ({ provider, providerAccountId }, ttlMs) =>
      run("lockAccount", async (em) => {
        if (!(Number.isFinite(ttlMs) && ttlMs > 0)) refuse("lockAccount needs a positive ttlMs");
        const lockKey = JSON.stringify([provider, providerAccountId]);
        const holder = randomUUID();
        const now = Date.now();
        const expires = now + Math.ceil(ttlMs);
        let taken: boolean;
        try {
          await em.insert(LockEntity, { key: lockKey, holder, expires });
          taken = true;
        } catch (error) {
          if (!(error instanceof UniqueConstraintViolationException)) throw error;
          // Held or expired: an expired lock is taken over by the one update that still sees it
          // expired.
          const changed = await em.nativeUpdate(
            LockEntity,
            { key: lockKey, expires: { $lte: now } },
            { holder, expires },
          );
          taken = changed > 0;
        }
        if (!taken) return null;
        let released = false;
        return async () => {
          if (released) return;
          released = true;
          await run("lockAccount", (fork) =>
            fork.nativeDelete(LockEntity, { key: lockKey, holder }),
          );
        };
      }),
    listAccountsByUserId: (userId) =>
      run("listAccountsByUserId", async (em) => {
        const rows = accounts(em);
        const found = await em.find(
          AccountEntity,
          { user: userId },
          { orderBy: { provider: "asc", providerAccountId: "asc" } },
        );
        return found.map(rows.row);
      }),

    createSession: (session) =>
      run("createSession", (em) => insert(em, SessionEntity, sessions(em), session)),
    getSessionAndUser: (sessionToken) =>
      run("getSessionAndUser", async (em) => {
        const session = await em.findOne(
          SessionEntity,
          { sessionToken },
          { populate: ["user"], strategy: "joined" },
        );
        if (!session) return null;
        return { session: sessions(em).row(session), user: users(em).row(session.user) };
      }),
    updateSession: (patch) =>
      run("updateSession", async (em) => {
        const rows = sessions(em);
        const session = await em.findOne(SessionEntity, { sessionToken: patch.sessionToken });
        if (!session) return null;
        em.assign(session, rows.data(patch));
        await em.flush();
        return rows.row(session);
      }),
    listSessionsByUserId: (userId) =>
      run("listSessionsByUserId", async (em) => {
        const rows = sessions(em);
        const found = await em.find(SessionEntity, { user: userId }, { orderBy: { id: "asc" } });
        return found.map(rows.row).sort(byCreation);
      }),
    deleteSessionsByUserId: (userId, options = {}) =>
      run("deleteSessionsByUserId", (em) =>
        em.nativeDelete(
          SessionEntity,
          options.except === undefined
            ? { user: userId }
            : { user: userId, sessionToken: { $ne: options.except } },
        ),
      ),
    deleteSession: (sessionToken) =>
      run("deleteSession", async (em) => {
        const session = await em.findOne(SessionEntity, { sessionToken });
        if (!session) return null;
        await em.nativeDelete(SessionEntity, { sessionToken });
        return sessions(em).row(session);
      }),

    ...verificationTokenMethods(run, TokenEntity as EntityName<VerificationToken>),

    createAuthenticator: (authenticator) =>
      run("createAuthenticator", (em) =>
        insert(em, AuthenticatorEntity, authenticators(em), authenticator),
      ),
    getAuthenticator: (credentialID) =>
      run("getAuthenticator", async (em) =>
        authenticators(em).maybe(await em.findOne(AuthenticatorEntity, { credentialID })),
      ),
    listAuthenticatorsByUserId: (userId) =>
      run("listAuthenticatorsByUserId", async (em) => {
        const rows = authenticators(em);
        return (await em.find(AuthenticatorEntity, { user: userId })).map(rows.row);
      }),
    updateAuthenticatorCounter: (credentialID, newCounter) =>
      run("updateAuthenticatorCounter", async (em) => {
        const rows = authenticators(em);
        const authenticator =
          (await em.findOne(AuthenticatorEntity, { credentialID })) ??
          refuse("no authenticator with this credential id");
        em.assign(authenticator, { counter: newCounter });
        await em.flush();
        return rows.row(authenticator);
      }),
    deleteAuthenticator: (credentialID) =>
      run("deleteAuthenticator", async (em) => {
        const authenticator = await em.findOne(AuthenticatorEntity, { credentialID });
        if (!authenticator) return null;
        // Read, then delete by key: a concurrent delete that removed the row first wins.
        const deleted = await em.nativeDelete(AuthenticatorEntity, { credentialID });
        return deleted > 0 ? authenticators(em).row(authenticator) : null;
      }),
  };
}
