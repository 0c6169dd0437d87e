/**
 * The adapter: one SQL statement per method, built once per adapter with the schema-qualified,
 * quoted table names.
 */
import type {
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  CompleteAdapter,
} from "@gatehousejs/core/adapters";
import {
  isNodePostgres,
  type PostgresOptions,
  type Queryable,
  quoteSchema,
  type Row,
  rowsOf,
  serialized,
} from "./client.js";
import {
  accountFields,
  jsonAccountFields,
  SESSION_METADATA,
  toAccount,
  toAuthenticator,
  toSession,
  toUser,
} from "./rows.js";
import {
  type PostgresVerificationTokenMethods,
  verificationTokenMethods,
} from "./verification-tokens.js";

/** A session as stored: the contract's fields and the row's own `id`. */
export type StoredSession = AdapterSession & { id: string };

/** A session row (selected with {@link SESSION_ROW}) with its `id`. */
const sessionOf = (row: Row): StoredSession => ({ id: String(row.id), ...toSession(row) });

/** What {@link PostgresAdapter} returns: every method of the contract, asynchronous. */
export interface PostgresAdapterMethods extends CompleteAdapter, PostgresVerificationTokenMethods {
  /** `""` (no email) is never found. */
  getUserByEmail(email: string): Promise<AdapterUser | null>;
  /** Throws when no user has this id. */
  updateUser(user: Partial<AdapterUser> & Pick<AdapterUser, "id">): Promise<AdapterUser>;
  /** Deletes the user, and by cascade its accounts, sessions and authenticators. */
  deleteUser(userId: string): Promise<AdapterUser | null>;
  /** Throws (unique violation, SQLSTATE 23505) when the provider account is already linked. */
  linkAccount(account: AdapterAccount): Promise<AdapterAccount>;
  /**
   * One `UPDATE`: the token fields given (and `error`, `passwordHash`), leaving the others
   * alone; `null` clears a field. With `ifRefreshToken` it writes only if the stored
   * `refresh_token` still equals it (`null`: none stored), and returns `null` when it did not;
   * `null` also for an unknown account.
   */
  updateAccount(
    account: Partial<AdapterAccount> & Pick<AdapterAccount, "provider" | "providerAccountId">,
    options?: { ifRefreshToken?: string | null },
  ): Promise<AdapterAccount | null>;
  /**
   * A row in `account_locks`, taken by one `INSERT … ON CONFLICT` when absent or expired (the
   * database's clock decides); the release deletes it only while it is still this holder's.
   */
  lockAccount(
    key: Pick<AdapterAccount, "provider" | "providerAccountId">,
    ttlMs: number,
  ): Promise<(() => Promise<void>) | null>;
  /** One indexed query, ordered by provider and account id. */
  listAccountsByUserId(userId: string): Promise<AdapterAccount[]>;
  /** Returns the session's row `id`, as every method that returns a session does. */
  createSession(session: AdapterSession): Promise<StoredSession>;
  /** One joined query. */
  getSessionAndUser(
    sessionToken: string,
  ): Promise<{ session: StoredSession; user: AdapterUser } | null>;
  /** `null` for an unknown token; never creates a session. */
  updateSession(
    session: Partial<AdapterSession> & Pick<AdapterSession, "sessionToken">,
  ): Promise<StoredSession | null>;
  deleteSession(sessionToken: string): Promise<StoredSession | null>;
  /** One indexed query; expired sessions included, oldest first (unknown creation times last). */
  listSessionsByUserId(userId: string): Promise<StoredSession[]>;
  /** One `DELETE`; returns how many sessions it deleted. */
  deleteSessionsByUserId(userId: string, options?: { except?: string }): Promise<number>;
  /** Throws when no authenticator has this credential id. */
  updateAuthenticatorCounter(
    credentialID: string,
    newCounter: number,
  ): Promise<AdapterAuthenticator>;
  /**
   * One `DELETE … RETURNING`: the deleted authenticator, or `null` when no authenticator has this
   * credential id. The passkey's `webauthn` account row stays; remove it with `unlinkAccount`.
   */
  deleteAuthenticator(credentialID: string): Promise<AdapterAuthenticator | null>;
}

const USER_COLUMNS = ["id", "name", "email", "emailVerified", "image"] as const;
/** A quoted column list, optionally prefixed by a table alias. */
const columns = (names: readonly string[], alias?: string) =>
  names.map((n) => (alias ? `${alias}."${n}"` : `"${n}"`)).join(", ");
const USER = columns(USER_COLUMNS);
const SESSION_COLUMNS = ["sessionToken", "userId", "expires", ...SESSION_METADATA] as const;
const SESSION = columns(SESSION_COLUMNS);
/** What a statement returns for a session: its columns and the row id, as other adapters do. */
const SESSION_ROW = columns(["id", ...SESSION_COLUMNS]);
const AUTHENTICATOR = columns([
  "credentialID",
  "userId",
  "providerAccountId",
  "credentialPublicKey",
  "counter",
  "credentialDeviceType",
  "credentialBackedUp",
  "transports",
]);
const ACCOUNT_INSERT = [
  "id",
  "userId",
  "type",
  "provider",
  "providerAccountId",
  ...accountFields,
] as const;

function fail(message: string): never {
  // Messages name the kind of row, never a key or a token: they end up in logs.
  throw new Error(`PostgresAdapter: ${message}`);
}

const first = (rows: Row[]): Row | undefined => rows[0];

/**
 * `SET` clauses for the fields of `patch` that are not `undefined` (an update leaves those
 * alone), numbering parameters from `$2`. Column names come from `columns`, never from `patch`.
 */
function assignments(
  patch: Record<string, unknown>,
  columns: readonly string[],
  convert: (column: string, value: unknown) => unknown = (_, v) => v,
): { set: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  for (const column of columns) {
    if (patch[column] === undefined) continue;
    params.push(convert(column, patch[column]));
    parts.push(`"${column}" = $${params.length + 1}`);
  }
  return { set: parts.join(", "), params };
}

/**
 * A Gatehouse adapter over PostgreSQL. `client` is anything with `query(text, params)` that
 * resolves to `{ rows }`: a `pg` `Pool` (recommended on a server), a `pg` `Client`, or PGlite.
 * Create the tables first with {@link migrate} (or `schema.sql`).
 *
 * Every method is one SQL statement: `getSessionAndUser` is a single join, and
 * `useVerificationToken` a single `DELETE … RETURNING`, so a token is redeemed once however many
 * requests race for it. Ids are made by the database (`gen_random_uuid()`) unless given; Dates
 * come back as `Date`, `expires_at` and `counter` as numbers. Driver errors are thrown as they
 * are (with their SQLSTATE `code`), never swallowed.
 *
 * @example
 * ```ts
 * import { Auth, type AuthConfig } from "@gatehousejs/core";
 * import { migrate, PostgresAdapter } from "@gatehousejs/pg-adapter";
 * import { Pool } from "pg";
 *
 * const pool = new Pool({ connectionString: process.env.DATABASE_URL });
 * await migrate(pool);
 * const config = {
 *   secret: process.env.AUTH_SECRET,
 *   trustHost: true,
 *   adapter: PostgresAdapter(pool), // sessions default to the "database" strategy
 *   providers: [],
 * } satisfies AuthConfig;
 * export const handler = (request: Request) => Auth(request, config);
 * ```
 */
export function PostgresAdapter(
  client: Queryable,
  options: PostgresOptions = {},
): PostgresAdapterMethods {
  const s = quoteSchema(options.schema);
  const users = `${s}."users"`;
  const accounts = `${s}."accounts"`;
  const sessions = `${s}."sessions"`;
  const tokens = `${s}."verification_tokens"`;
  const authenticators = `${s}."authenticators"`;
  const locks = `${s}."account_locks"`;

  const named = isNodePostgres(client);
  const queue = serialized(client);
  const run = (sql: string, params?: unknown[]) => rowsOf(queue, sql, params, named);
  const one = async (sql: string, params?: unknown[]) => first(await run(sql, params));

  const insertAccount = `INSERT INTO ${accounts} (${columns(ACCOUNT_INSERT)})
VALUES (COALESCE($1, gen_random_uuid()::text), ${ACCOUNT_INSERT.slice(1)
    .map((c, i) => (jsonAccountFields.has(c) ? `$${i + 2}::jsonb` : `$${i + 2}`))
    .join(", ")})
RETURNING *`;

  // Session and user columns overlap only in "id", so the session's row id is read under
  // another name and one flat row carries both.
  const sessionAndUser = `SELECT s."id" AS "sessionId", ${columns(SESSION_COLUMNS, "s")}, ${columns(USER_COLUMNS, "u")}
FROM ${sessions} s JOIN ${users} u ON u."id" = s."userId"
WHERE s."sessionToken" = $1`;

  return {
    async createUser(user) {
      const row = await one(
        `INSERT INTO ${users} (${USER}) VALUES (COALESCE($1, gen_random_uuid()::text), $2, $3, $4, $5)
RETURNING ${USER}`,
        [
          user.id || null,
          user.name ?? null,
          user.email ?? "",
          user.emailVerified ?? null,
          user.image ?? null,
        ],
      );
      return toUser(row ?? fail("INSERT into users returned no row"));
    },
    async getUser(id) {
      const row = await one(`SELECT ${USER} FROM ${users} WHERE "id" = $1`, [id]);
      return row ? toUser(row) : null;
    },
    async getUserByEmail(email) {
      // The `<> ''` matches the partial unique index, and keeps "no email" from matching.
      const row = await one(`SELECT ${USER} FROM ${users} WHERE "email" = $1 AND "email" <> ''`, [
        email,
      ]);
      return row ? toUser(row) : null;
    },
    async getUserByAccount({ provider, providerAccountId }) {
      const row = await one(
        `SELECT ${columns(USER_COLUMNS, "u")} FROM ${users} u
JOIN ${accounts} a ON a."userId" = u."id"
WHERE a."provider" = $1 AND a."providerAccountId" = $2`,
        [provider, providerAccountId],
      );
      return row ? toUser(row) : null;
    },
    async updateUser(patch) {
      const { set, params } = assignments(patch, USER_COLUMNS.slice(1), (column, value) =>
        column === "email" ? (value ?? "") : value,
      );
      const row = set
        ? await one(`UPDATE ${users} SET ${set} WHERE "id" = $1 RETURNING ${USER}`, [
            patch.id,
            ...params,
          ])
        : await one(`SELECT ${USER} FROM ${users} WHERE "id" = $1`, [patch.id]);
      return toUser(row ?? fail("no user with this id"));
    },
    async deleteUser(userId) {
      const row = await one(`DELETE FROM ${users} WHERE "id" = $1 RETURNING ${USER}`, [userId]);
      return row ? toUser(row) : null;
    },

    async linkAccount(account) {
      const params = ACCOUNT_INSERT.map((column) => {
        const value = account[column];
        if (value === undefined || value === null) return null;
        if (column === "id") return typeof value === "string" && value ? value : null;
        return jsonAccountFields.has(column) ? JSON.stringify(value) : value;
      });
      const row = await one(insertAccount, params);
      return toAccount(row ?? fail("INSERT into accounts returned no row"));
    },
    async unlinkAccount({ provider, providerAccountId }) {
      const row = await one(
        `DELETE FROM ${accounts} WHERE "provider" = $1 AND "providerAccountId" = $2 RETURNING *`,
        [provider, providerAccountId],
      );
      return row ? toAccount(row) : undefined;
    },
    async getAccount(providerAccountId, provider) {
      const row = await one(
        `SELECT * FROM ${accounts} WHERE "provider" = $1 AND "providerAccountId" = $2`,
        [provider, providerAccountId],
      );
      return row ? toAccount(row) : null;
    },
    async updateAccount(patch, options = {}) {
      const { set, params } = assignments(patch, accountFields, (column, value) =>
        jsonAccountFields.has(column) && value !== null ? JSON.stringify(value) : value,
      );
      const cas = options.ifRefreshToken !== undefined;
      const where = `"provider" = $1 AND "providerAccountId" = $2${
        cas ? ` AND "refresh_token" IS NOT DISTINCT FROM $${params.length + 3}` : ""
      }`;
      // `assignments` numbers from $2; the key takes $1 and $2, so its numbers move up by one.
      const shifted = set.replace(/\$(\d+)/g, (_, n) => `$${Number(n) + 1}`);
      const rest = cas ? [...params, options.ifRefreshToken] : params;
      const row = shifted
        ? await one(`UPDATE ${accounts} SET ${shifted} WHERE ${where} RETURNING *`, [
            patch.provider,
            patch.providerAccountId,
            ...rest,
          ])
        : await one(`SELECT * FROM ${accounts} WHERE ${where}`, [
            patch.provider,
            patch.providerAccountId,
            ...(cas ? [options.ifRefreshToken] : []),
          ]);
      return row ? toAccount(row) : null;
    },
    async lockAccount({ provider, providerAccountId }, ttlMs) {
      if (!(Number.isFinite(ttlMs) && ttlMs > 0)) fail("lockAccount needs a positive ttlMs");
      const lockKey = JSON.stringify([provider, providerAccountId]);
      const holder = crypto.randomUUID();
      const row = await one(
        `INSERT INTO ${locks} ("key", "holder", "expires")
VALUES ($1, $2, clock_timestamp() + $3 * interval '1 millisecond')
ON CONFLICT ("key") DO UPDATE SET "holder" = EXCLUDED."holder", "expires" = EXCLUDED."expires"
WHERE ${locks}."expires" <= clock_timestamp()
RETURNING "holder"`,
        [lockKey, holder, Math.ceil(ttlMs)],
      );
      if (!row) return null;
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        await run(`DELETE FROM ${locks} WHERE "key" = $1 AND "holder" = $2`, [lockKey, holder]);
      };
    },
    async listAccountsByUserId(userId) {
      // Served by the "accounts_userId_idx" index.
      const rows = await run(
        `SELECT * FROM ${accounts} WHERE "userId" = $1 ORDER BY "provider", "providerAccountId"`,
        [userId],
      );
      return rows.map(toAccount);
    },

    async createSession(session) {
      const row = await one(
        `INSERT INTO ${sessions} (${SESSION}) VALUES (${SESSION_COLUMNS.map((_, i) => `$${i + 1}`).join(", ")})
RETURNING ${SESSION_ROW}`,
        SESSION_COLUMNS.map((column) => session[column] ?? null),
      );
      return sessionOf(row ?? fail("INSERT into sessions returned no row"));
    },
    async getSessionAndUser(sessionToken) {
      const row = await one(sessionAndUser, [sessionToken]);
      return row ? { session: sessionOf({ ...row, id: row.sessionId }), user: toUser(row) } : null;
    },
    async updateSession(patch) {
      const { set, params } = assignments(patch, SESSION_COLUMNS.slice(1));
      const row = set
        ? await one(
            `UPDATE ${sessions} SET ${set} WHERE "sessionToken" = $1 RETURNING ${SESSION_ROW}`,
            [patch.sessionToken, ...params],
          )
        : await one(`SELECT ${SESSION_ROW} FROM ${sessions} WHERE "sessionToken" = $1`, [
            patch.sessionToken,
          ]);
      return row ? sessionOf(row) : null;
    },
    async deleteSession(sessionToken) {
      const row = await one(
        `DELETE FROM ${sessions} WHERE "sessionToken" = $1 RETURNING ${SESSION_ROW}`,
        [sessionToken],
      );
      return row ? sessionOf(row) : null;
    },
    async listSessionsByUserId(userId) {
      // Served by the "sessions_userId_idx" index.
      const rows = await run(
        `SELECT ${SESSION_ROW} FROM ${sessions} WHERE "userId" = $1
ORDER BY "createdAt" ASC NULLS LAST, "id"`,
        [userId],
      );
      return rows.map(sessionOf);
    },
    async deleteSessionsByUserId(userId, options = {}) {
      // `IS DISTINCT FROM` keeps every row when there is no exception (NULL).
      const row = await one(
        `WITH deleted AS (
  DELETE FROM ${sessions} WHERE "userId" = $1 AND "sessionToken" IS DISTINCT FROM $2 RETURNING 1
)
SELECT count(*)::int AS "count" FROM deleted`,
        [userId, options.except ?? null],
      );
      return Number(row?.count ?? 0);
    },

    ...verificationTokenMethods(one, tokens),

    async createAuthenticator(authenticator) {
      const row = await one(
        `INSERT INTO ${authenticators} (${AUTHENTICATOR}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
RETURNING ${AUTHENTICATOR}`,
        [
          authenticator.credentialID,
          authenticator.userId,
          authenticator.providerAccountId,
          authenticator.credentialPublicKey,
          authenticator.counter,
          authenticator.credentialDeviceType,
          authenticator.credentialBackedUp,
          authenticator.transports ?? null,
        ],
      );
      return toAuthenticator(row ?? fail("INSERT into authenticators returned no row"));
    },
    async getAuthenticator(credentialID) {
      const row = await one(
        `SELECT ${AUTHENTICATOR} FROM ${authenticators} WHERE "credentialID" = $1`,
        [credentialID],
      );
      return row ? toAuthenticator(row) : null;
    },
    async listAuthenticatorsByUserId(userId) {
      const rows = await run(
        `SELECT ${AUTHENTICATOR} FROM ${authenticators} WHERE "userId" = $1 ORDER BY "credentialID"`,
        [userId],
      );
      return rows.map(toAuthenticator);
    },
    async updateAuthenticatorCounter(credentialID, newCounter) {
      const row = await one(
        `UPDATE ${authenticators} SET "counter" = $2 WHERE "credentialID" = $1
RETURNING ${AUTHENTICATOR}`,
        [credentialID, newCounter],
      );
      return toAuthenticator(row ?? fail("no authenticator with this credential id"));
    },
    async deleteAuthenticator(credentialID) {
      const row = await one(
        `DELETE FROM ${authenticators} WHERE "credentialID" = $1 RETURNING ${AUTHENTICATOR}`,
        [credentialID],
      );
      return row ? toAuthenticator(row) : null;
    },
  };
}
