/**
 * The adapter: the contract's methods over Drizzle's query builder, with the few statements
 * that differ by dialect kept in `dialect.ts` and `context.ts`.
 */
import type {
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  CompleteAdapter,
  VerificationToken,
} from "@gatehousejs/core/adapters";
import { type AdapterLogger, createContext } from "./context.js";
import { type DrizzleDatabase, dialected, guarded } from "./dialect.js";
import type { StoredSession } from "./rows.js";
import { sessionMethods } from "./sessions.js";
import { type TablesOption, tablesOf } from "./tables.js";
import { tokenMethods } from "./tokens.js";
import { userMethods } from "./users.js";

/** Options of {@link DrizzleAdapter}. */
export interface DrizzleAdapterOptions {
  /** Tables of your own in place of the package's (see {@link TablesOption}). */
  tables?: TablesOption;
  /**
   * Where a warning about the schema goes (an optional column the database lacks). Default:
   * `console`.
   */
  logger?: AdapterLogger;
}

type TokenKey = Pick<VerificationToken, "identifier" | "token">;

/** What {@link DrizzleAdapter} returns: every method of the contract, asynchronous. */
export interface DrizzleAdapterMethods extends CompleteAdapter {
  /** `""` (no email) is never found. */
  getUserByEmail(email: string): Promise<AdapterUser | null>;
  /** Throws when no user has this id. */
  updateUser(user: Partial<AdapterUser> & Pick<AdapterUser, "id">): Promise<AdapterUser>;
  /** Deletes the user's sessions, accounts and authenticators, then the user. */
  deleteUser(userId: string): Promise<AdapterUser | null>;
  /** Throws the driver's unique-violation error when the provider account is already linked. */
  linkAccount(account: AdapterAccount): Promise<AdapterAccount>;
  /**
   * The token fields given (and `error`, `passwordHash`), leaving the others alone; `null`
   * clears a field. With `ifRefreshToken` it writes only if the stored `refresh_token` still
   * equals it (`null`: none stored), and returns `null` when it did not.
   */
  updateAccount(
    account: Partial<AdapterAccount> & Pick<AdapterAccount, "provider" | "providerAccountId">,
    options?: { ifRefreshToken?: string | null },
  ): Promise<AdapterAccount | null>;
  /**
   * A row in `account_locks`, taken when absent or expired (the database's clock decides); the
   * release deletes it only while it is still this holder's.
   */
  lockAccount(
    key: Pick<AdapterAccount, "provider" | "providerAccountId">,
    ttlMs: number,
  ): Promise<(() => Promise<void>) | null>;
  /** Ordered by provider and account id. */
  listAccountsByUserId(userId: string): Promise<AdapterAccount[]>;
  /** Returns the session's row `id`, as every method that returns a session does. */
  createSession(session: AdapterSession): Promise<StoredSession>;
  /** One joined query, on every dialect. */
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
  /** Returns how many sessions it deleted. */
  deleteSessionsByUserId(userId: string, options?: { except?: string }): Promise<number>;
  /** Of concurrent calls for one token, exactly one gets it. */
  useVerificationToken(key: TokenKey): Promise<VerificationToken | null>;
  /** Counted atomically: of concurrent calls, at most `max` get a number, each a different one. */
  countVerificationTokenTry(key: TokenKey, max: number): Promise<number | null>;
  /** Throws when no authenticator has this credential id. */
  updateAuthenticatorCounter(
    credentialID: string,
    newCounter: number,
  ): Promise<AdapterAuthenticator>;
  /** The deleted authenticator, or `null`. Its `webauthn` account stays: use `unlinkAccount`. */
  deleteAuthenticator(credentialID: string): Promise<AdapterAuthenticator | null>;
}

/**
 * A Gatehouse adapter over a Drizzle database: PostgreSQL (`drizzle-orm/node-postgres`,
 * `drizzle-orm/pglite`), MySQL and MariaDB (`drizzle-orm/mysql2`, with a pool) or SQLite
 * (`drizzle-orm/better-sqlite3`, `drizzle-orm/libsql`). The dialect is read from `db`; the
 * tables are those of `@gatehousejs/drizzle-adapter/pg`, `/mysql` or `/sqlite` unless you give
 * your own in `options.tables`. Create them with `npx gatehouse migrate` (or drizzle-kit).
 *
 * The session check (`getSessionAndUser`) is one joined query. A verification token is
 * redeemed once however many requests race for it (`DELETE … RETURNING` on PostgreSQL and
 * SQLite; on MySQL the one `DELETE` that removed the row). Driver errors are thrown as the
 * driver made them (with their code), never with the statement's parameters. A database that
 * lacks an optional column (an older schema) keeps signing people in: the adapter logs a
 * warning once and goes on without it.
 *
 * @example
 * ```ts
 * import { Auth, type AuthConfig } from "@gatehousejs/core";
 * import { DrizzleAdapter } from "@gatehousejs/drizzle-adapter";
 * import { drizzle } from "drizzle-orm/node-postgres";
 *
 * const db = drizzle(process.env.DATABASE_URL ?? "");
 * const config = {
 *   secret: process.env.AUTH_SECRET,
 *   trustHost: true,
 *   adapter: DrizzleAdapter(db),
 *   providers: [],
 * } satisfies AuthConfig;
 * export const handler = (request: Request) => Auth(request, config);
 * ```
 */
export function DrizzleAdapter(
  db: DrizzleDatabase,
  options: DrizzleAdapterOptions = {},
): DrizzleAdapterMethods {
  const d = dialected(db);
  const ctx = createContext(d, tablesOf(d.dialect, options.tables), options.logger);
  const methods: Record<string, (...args: never[]) => Promise<unknown>> = {
    ...userMethods(ctx),
    ...sessionMethods(ctx),
    ...tokenMethods(ctx),
  };
  // Every method throws the driver's error, not Drizzle's wrapper (whose message holds the
  // parameters); the lock's release function too.
  const adapter: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(methods)) {
    adapter[name] = (...args: never[]) =>
      guarded(async () => {
        const result = await method(...args);
        if (name !== "lockAccount" || typeof result !== "function") return result;
        const release = result as () => Promise<void>;
        return () => guarded(release);
      });
  }
  return adapter as unknown as DrizzleAdapterMethods;
}
