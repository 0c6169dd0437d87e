/**
 * The adapter: Prisma's model queries for everything but the session check, which is one raw
 * join (Prisma would make it two queries, or one only with the `relationJoins` preview and never
 * on SQLite).
 */
import type {
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  CompleteAdapter,
} from "@gatehousejs/core/adapters";
import {
  type Db,
  dialectOf,
  given,
  isUniqueViolation,
  model,
  orNull,
  type PrismaAdapterOptions,
  type PrismaClientLike,
  type PrismaModelDelegate,
  type Row,
  storedKey,
  TX_OPTIONS,
  tableNamer,
} from "./client.js";
import {
  accountFields,
  jsonAccountFields,
  type StoredSession,
  toAccount,
  toAuthenticator,
  toUser,
} from "./rows.js";
import { sessionMethods, USER_SELECT } from "./sessions.js";
import { omitted, tolerance } from "./tolerance.js";
import {
  type PrismaVerificationTokenMethods,
  verificationTokenMethods,
} from "./verification-tokens.js";

/** The models {@link PrismaAdapter} uses, by their client property names. */
export type PrismaAdapterModels =
  | "user"
  | "account"
  | "accountLock"
  | "session"
  | "verificationToken"
  | "authenticator";

/**
 * The models a feature adds, and the adapter methods that need each: `gatehouse generate` writes
 * only the models a configuration uses, so a client may lack them.
 */
const OPTIONAL_MODELS = {
  session: [
    "createSession",
    "getSessionAndUser",
    "updateSession",
    "deleteSession",
    "listSessionsByUserId",
    "deleteSessionsByUserId",
  ],
  verificationToken: [
    "createVerificationToken",
    "useVerificationToken",
    "countVerificationTokenTry",
  ],
  authenticator: [
    "createAuthenticator",
    "getAuthenticator",
    "listAuthenticatorsByUserId",
    "updateAuthenticatorCounter",
    "deleteAuthenticator",
  ],
  accountLock: ["lockAccount"],
} as const satisfies Record<Exclude<PrismaAdapterModels, "user" | "account">, readonly string[]>;

/**
 * The client {@link PrismaAdapter} takes: one with the `User` and `Account` models, and any of the
 * others (`Session`, `VerificationToken`, `Authenticator`, `AccountLock`) its features need.
 */
export type PrismaAdapterClient = PrismaClientLike<"user" | "account"> &
  Partial<Record<keyof typeof OPTIONAL_MODELS, PrismaModelDelegate>>;

/** What {@link PrismaAdapter} returns: every method of the contract, asynchronous. */
export interface PrismaAdapterMethods extends CompleteAdapter, PrismaVerificationTokenMethods {
  /** `""` (no email) is never found. */
  getUserByEmail(email: string): Promise<AdapterUser | null>;
  /** Throws when no user has this id. */
  updateUser(user: Partial<AdapterUser> & Pick<AdapterUser, "id">): Promise<AdapterUser>;
  /**
   * Deletes the user with its sessions, accounts and authenticators, in one transaction: the
   * children are deleted explicitly, so it holds on SQLite without `PRAGMA foreign_keys`.
   */
  deleteUser(userId: string): Promise<AdapterUser | null>;
  /** Throws (Prisma's P2002) when the provider account is already linked. */
  linkAccount(account: AdapterAccount): Promise<AdapterAccount>;
  /**
   * Writes the fields given (`null` clears one), leaving the others alone. With
   * `ifRefreshToken` it writes only if the stored `refresh_token` still equals it (`null`: none
   * stored) and returns `null` when it did not; `null` also for an unknown account.
   */
  updateAccount(
    account: Partial<AdapterAccount> & Pick<AdapterAccount, "provider" | "providerAccountId">,
    options?: { ifRefreshToken?: string | null },
  ): Promise<AdapterAccount | null>;
  /**
   * A row in `account_locks`, inserted when absent, or taken over by one conditional update
   * when expired (this process's clock decides); the release deletes it only while it is still
   * this holder's.
   */
  lockAccount(
    key: Pick<AdapterAccount, "provider" | "providerAccountId">,
    ttlMs: number,
  ): Promise<(() => Promise<void>) | null>;
  /** Ordered by provider and account id. */
  listAccountsByUserId(userId: string): Promise<AdapterAccount[]>;
  /** Returns the session's row `id`, as every method that returns a session does. */
  createSession(session: AdapterSession): Promise<StoredSession>;
  /** ONE query: a join of the session and its user. */
  getSessionAndUser(
    sessionToken: string,
  ): Promise<{ session: StoredSession; user: AdapterUser } | null>;
  /** `null` for an unknown token; never creates a session. */
  updateSession(
    session: Partial<AdapterSession> & Pick<AdapterSession, "sessionToken">,
  ): Promise<StoredSession | null>;
  deleteSession(sessionToken: string): Promise<StoredSession | null>;
  /** Expired sessions included, oldest first (unknown creation times last). */
  listSessionsByUserId(userId: string): Promise<StoredSession[]>;
  /** One `DELETE`; returns how many sessions it deleted. */
  deleteSessionsByUserId(userId: string, options?: { except?: string }): Promise<number>;
  /** Throws when no authenticator has this credential id. */
  updateAuthenticatorCounter(
    credentialID: string,
    newCounter: number,
  ): Promise<AdapterAuthenticator>;
  /** The deleted authenticator, or `null`. Its `webauthn` account stays: use `unlinkAccount`. */
  deleteAuthenticator(credentialID: string): Promise<AdapterAuthenticator | null>;
}

const WHO = "PrismaAdapter";

function fail(message: string): never {
  // Messages name the kind of row, never a key or a token: they end up in logs.
  throw new Error(`${WHO}: ${message}`);
}

/**
 * The account fields of `patch` to write. `null` clears a field; a JSON column is cleared with
 * Prisma's `DbNull`, loaded only then (from the runtime the generated client itself uses).
 */
async function accountData(patch: Record<string, unknown>): Promise<Row> {
  const data = given(patch, accountFields);
  const clears = Object.keys(data).filter((f) => data[f] === null && jsonAccountFields.has(f));
  if (clears.length > 0) {
    const { DbNull } = await import("@prisma/client/runtime/client");
    for (const field of clears) data[field] = DbNull;
  }
  return data;
}

/**
 * A Gatehouse adapter over a Prisma 7 client (the `prisma-client` generator, with a driver
 * adapter: `@prisma/adapter-pg`, `@prisma/adapter-mariadb` or `@prisma/adapter-better-sqlite3`).
 * The client's schema must hold the models of this package's fragment, `prisma/<dialect>.prisma`
 * (docs/prisma.md); the client is typed by shape, so your own generated client fits.
 *
 * - `getSessionAndUser` is one query: a join written in SQL for the client's dialect.
 * - `useVerificationToken` reads the token, then deletes it with a `deleteMany` whose count
 *   says whether this call deleted it: of any number of racing calls, one gets the token.
 * - `countVerificationTokenTry` is a guarded increment and a read in one short transaction.
 * - `deleteUser` deletes the user's sessions, accounts and authenticators itself, so it does
 *   not rely on foreign keys being enforced (SQLite's `PRAGMA foreign_keys`).
 * - An older schema keeps signing people in: when the database lacks an optional column added
 *   after its table first shipped (`accounts.passwordHash`, the session-record columns, …), one
 *   warning names it (`options.logger`, default `console`) and the adapter goes on without it;
 *   storing a password hash or counting a code's tries without its column throws, naming it.
 * - The client needs the `User` and `Account` models; without `Session`, `VerificationToken`,
 *   `Authenticator` or `AccountLock` (`gatehouse generate` writes only the models the
 *   configuration uses), the methods that need it are left out of the adapter, and Gatehouse
 *   names them if the configuration needs them.
 *
 * @example
 * ```ts
 * import type { AuthConfig } from "@gatehousejs/core";
 * import { PrismaAdapter } from "@gatehousejs/prisma-adapter";
 * import { PrismaPg } from "@prisma/adapter-pg";
 * import { PrismaClient } from "./generated/prisma/client.js";
 *
 * const prisma = new PrismaClient({
 *   adapter: new PrismaPg({ connectionString: process.env.DATABASE_URL }),
 * });
 * const config = {
 *   secret: process.env.AUTH_SECRET,
 *   adapter: PrismaAdapter(prisma),
 *   providers: [],
 * } satisfies AuthConfig;
 * ```
 */
export function PrismaAdapter(
  prisma: PrismaAdapterClient,
  options: PrismaAdapterOptions = {},
): PrismaAdapterMethods {
  const dialect = dialectOf(prisma, options.dialect, WHO);
  const table = tableNamer(dialect, options.schema, WHO);
  const db = prisma as unknown as Db;
  const tolerant = tolerance(WHO, options.logger);
  // A password account without its hash would be no account: its column is never dropped.
  const onAccounts = <T>(work: (missing: ReadonlySet<string>) => Promise<T>) =>
    tolerant.run("account", work);
  const accountWritable = (data: Row, missing: ReadonlySet<string>) =>
    tolerant.writable("account", data, missing, ["passwordHash"]);
  const users = model(db, "user");
  const accounts = model(db, "account");
  const locks = model(db, "accountLock");
  const authenticators = model(db, "authenticator");

  const has = (name: keyof typeof OPTIONAL_MODELS) => typeof db[name] === "object" && !!db[name];

  const accountKey = (key: Pick<AdapterAccount, "provider" | "providerAccountId">) => ({
    provider_providerAccountId: {
      provider: key.provider,
      providerAccountId: key.providerAccountId,
    },
  });

  const methods: PrismaAdapterMethods = {
    async createUser(user) {
      const row = await users.create({
        data: {
          id: user.id || crypto.randomUUID(),
          name: user.name ?? null,
          email: user.email ?? "",
          emailVerified: user.emailVerified ?? null,
          image: user.image ?? null,
        },
        select: USER_SELECT,
      });
      return toUser(row);
    },
    async getUser(id) {
      const row = await users.findUnique({ where: { id }, select: USER_SELECT });
      return row ? toUser(row) : null;
    },
    async getUserByEmail(email) {
      if (!email) return null;
      const row = await users.findFirst({ where: { email }, select: USER_SELECT });
      return row ? toUser(row) : null;
    },
    async getUserByAccount({ provider, providerAccountId }) {
      // A filter on the relation: one query (a sub-select), where an include would make two.
      const row = await users.findFirst({
        where: { accounts: { some: { provider, providerAccountId } } },
        select: USER_SELECT,
      });
      return row ? toUser(row) : null;
    },
    async updateUser(patch) {
      const data = given(patch, ["name", "email", "emailVerified", "image"], (field, value) =>
        field === "email" ? (value ?? "") : value,
      );
      const row =
        Object.keys(data).length > 0
          ? await orNull(users.update({ where: { id: patch.id }, data, select: USER_SELECT }))
          : await users.findUnique({ where: { id: patch.id }, select: USER_SELECT });
      return toUser(row ?? fail("no user with this id"));
    },
    async deleteUser(userId) {
      return db.$transaction(async (tx) => {
        const row = await model(tx, "user").findUnique({
          where: { id: userId },
          select: USER_SELECT,
        });
        if (!row) return null;
        for (const child of ["session", "authenticator"] as const) {
          if (has(child)) await model(tx, child).deleteMany({ where: { userId } });
        }
        await model(tx, "account").deleteMany({ where: { userId } });
        await model(tx, "user").deleteMany({ where: { id: userId } });
        return toUser(row);
      }, TX_OPTIONS);
    },

    async linkAccount(account) {
      const data: Row = {
        id: typeof account.id === "string" && account.id ? account.id : crypto.randomUUID(),
        userId: account.userId,
        type: account.type,
        provider: account.provider,
        providerAccountId: account.providerAccountId,
      };
      for (const field of accountFields) {
        const value = account[field];
        if (value !== undefined && value !== null) data[field] = value;
      }
      return onAccounts(async (missing) =>
        toAccount(
          await accounts.create({ data: accountWritable(data, missing), ...omitted(missing) }),
        ),
      );
    },
    unlinkAccount(key) {
      return onAccounts(async (missing) => {
        const row = await orNull(accounts.delete({ where: accountKey(key), ...omitted(missing) }));
        return row ? toAccount(row) : undefined;
      });
    },
    getAccount(providerAccountId, provider) {
      return onAccounts(async (missing) => {
        const row = await accounts.findUnique({
          where: accountKey({ provider, providerAccountId }),
          ...omitted(missing),
        });
        return row ? toAccount(row) : null;
      });
    },
    async updateAccount(patch, updateOptions = {}) {
      const patched = await accountData(patch);
      const key = accountKey(patch);
      return onAccounts(async (missing) => {
        const data = accountWritable(patched, missing);
        const omit = omitted(missing);
        if (updateOptions.ifRefreshToken === undefined) {
          const row =
            Object.keys(data).length > 0
              ? await orNull(accounts.update({ where: key, data, ...omit }))
              : await accounts.findUnique({ where: key, ...omit });
          return row ? toAccount(row) : null;
        }
        // Compare-and-swap: the guarded update takes the row lock, and the read in the same
        // transaction returns what this call wrote.
        const guard = {
          provider: patch.provider,
          providerAccountId: patch.providerAccountId,
          refresh_token: updateOptions.ifRefreshToken,
        };
        if (Object.keys(data).length === 0) {
          const row = await accounts.findFirst({ where: guard, ...omit });
          return row ? toAccount(row) : null;
        }
        return db.$transaction(async (tx) => {
          const { count } = await model(tx, "account").updateMany({ where: guard, data });
          if (count === 0) return null;
          const row = await model(tx, "account").findUnique({ where: key, ...omit });
          return row ? toAccount(row) : null;
        }, TX_OPTIONS);
      });
    },
    async lockAccount({ provider, providerAccountId }, ttlMs) {
      if (!(Number.isFinite(ttlMs) && ttlMs > 0)) fail("lockAccount needs a positive ttlMs");
      const key = await storedKey(dialect, JSON.stringify([provider, providerAccountId]));
      const holder = crypto.randomUUID();
      const expires = new Date(Date.now() + Math.ceil(ttlMs));
      let taken: boolean;
      try {
        await locks.create({ data: { key, holder, expires } });
        taken = true;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        // Held: take it over only if it has expired. Of racing takers, the first update moves
        // `expires` ahead and the others' condition no longer matches.
        const { count } = await locks.updateMany({
          where: { key, expires: { lte: new Date() } },
          data: { holder, expires },
        });
        taken = count === 1;
      }
      if (!taken) return null;
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        await locks.deleteMany({ where: { key, holder } });
      };
    },
    listAccountsByUserId(userId) {
      return onAccounts(async (missing) => {
        const rows = await accounts.findMany({
          where: { userId },
          orderBy: [{ provider: "asc" }, { providerAccountId: "asc" }],
          ...omitted(missing),
        });
        return rows.map(toAccount);
      });
    },

    ...sessionMethods(db, dialect, table, tolerant),

    ...verificationTokenMethods(db, tolerant, dialect, table),

    async createAuthenticator(authenticator) {
      const row = await authenticators.create({
        data: {
          credentialID: authenticator.credentialID,
          userId: authenticator.userId,
          providerAccountId: authenticator.providerAccountId,
          credentialPublicKey: authenticator.credentialPublicKey,
          counter: authenticator.counter,
          credentialDeviceType: authenticator.credentialDeviceType,
          credentialBackedUp: authenticator.credentialBackedUp,
          transports: authenticator.transports ?? null,
        },
      });
      return toAuthenticator(row);
    },
    async getAuthenticator(credentialID) {
      const row = await authenticators.findUnique({ where: { credentialID } });
      return row ? toAuthenticator(row) : null;
    },
    async listAuthenticatorsByUserId(userId) {
      const rows = await authenticators.findMany({
        where: { userId },
        orderBy: { credentialID: "asc" },
      });
      return rows.map(toAuthenticator);
    },
    async updateAuthenticatorCounter(credentialID, newCounter) {
      const row = await orNull(
        authenticators.update({ where: { credentialID }, data: { counter: newCounter } }),
      );
      return toAuthenticator(row ?? fail("no authenticator with this credential id"));
    },
    async deleteAuthenticator(credentialID) {
      const row = await orNull(authenticators.delete({ where: { credentialID } }));
      return row ? toAuthenticator(row) : null;
    },
  };
  // A model the client lacks takes its methods away, so that Gatehouse names what is missing when
  // the configuration is first used (a database session strategy without the Session model, say)
  // rather than in the middle of a request.
  for (const [name, needing] of Object.entries(OPTIONAL_MODELS)) {
    if (has(name as keyof typeof OPTIONAL_MODELS)) continue;
    for (const method of needing) delete (methods as unknown as Record<string, unknown>)[method];
  }
  return methods;
}
