/**
 * Users and the accounts linked to them, including the account lock of a token refresh.
 */
import { randomUUID } from "node:crypto";
import type { AdapterAccount, AdapterUser } from "@gatehousejs/core/adapters";
import { and, asc, eq, isNull, ne, sql } from "drizzle-orm";
import { type Context, writable } from "./context.js";
import { driverError, fittedKey, insertOf, sqliteNow } from "./dialect.js";
import { ACCOUNT_FIELDS, ACCOUNT_OPTIONAL, type Row, toAccount, userOf } from "./rows.js";
import { column, columnsOf, fieldsOf } from "./tables.js";

type AccountKey = Pick<AdapterAccount, "provider" | "providerAccountId">;

/** Columns of `accounts` an older schema may lack: reads go on without them. */
const ACCOUNT_LATE = ["error", "passwordHash"] as const;
/** Written only with their column: a password account without its hash is no account. */
const ACCOUNT_NEEDED = ["passwordHash"] as const;
/** Columns the database writes itself (MySQL's `email_key`). */
const GENERATED: ReadonlySet<string> = new Set(["emailKey"]);

/**
 * MariaDB's `json` is `longtext`, and the driver hands it back as text: decode it. (MySQL 8's
 * driver decodes it already; a value that is not JSON text is kept as it is.)
 */
function decodeJson(row: Row): Row {
  for (const field of ["session_state", "authorization_details"]) {
    const value = row[field];
    if (typeof value !== "string") continue;
    try {
      row[field] = JSON.parse(value);
    } catch {
      // A string that MySQL 8 decoded already.
    }
  }
  return row;
}

function fail(message: string): never {
  // Messages name the kind of row, never a key or a token: they end up in logs.
  throw new Error(`DrizzleAdapter: ${message}`);
}

export function userMethods(ctx: Context) {
  const { t, db } = ctx;
  const u = {
    id: column(t.users, "id"),
    email: column(t.users, "email"),
    emailKey: columnsOf(t.users)["emailKey"],
  };
  const a = {
    userId: column(t.accounts, "userId"),
    provider: column(t.accounts, "provider"),
    providerAccountId: column(t.accounts, "providerAccountId"),
    refresh_token: column(t.accounts, "refresh_token"),
  };
  const l = {
    key: column(t.accountLocks, "key"),
    holder: column(t.accountLocks, "holder"),
    expires: column(t.accountLocks, "expires"),
  };
  // Every column of the users table but those the database writes: extra columns of an app's
  // own table are stored and read back.
  const userFields = Object.fromEntries(
    Object.entries(columnsOf(t.users)).filter(([field]) => !GENERATED.has(field)),
  );
  const userColumns = new Set(Object.keys(userFields));
  const accountFields = (missing: ReadonlySet<string>) =>
    fieldsOf(t.accounts, ACCOUNT_FIELDS, missing);
  const accountWhere = ({ provider, providerAccountId }: AccountKey) =>
    and(eq(a.provider, provider), eq(a.providerAccountId, providerAccountId));
  const accountPatch = (patch: Row) =>
    Object.fromEntries(
      ACCOUNT_OPTIONAL.filter((f) => patch[f] !== undefined).map((f) => [f, patch[f]]),
    );
  const accountOf = (row: Row) => toAccount(ctx.dialect === "mysql" ? decodeJson(row) : row);
  const onAccounts = <T>(work: (missing: ReadonlySet<string>) => Promise<T>) =>
    ctx.tolerant(t.accounts, ACCOUNT_LATE, work);

  // The lock's clock is the database's, so that every process agrees on when a lock expires.
  const lockUntil = (ttlMs: number) =>
    ctx.dialect === "postgresql"
      ? sql`clock_timestamp() + ${ttlMs} * interval '1 millisecond'`
      : ctx.dialect === "mysql"
        ? sql`date_add(utc_timestamp(3), interval ${ttlMs * 1000} microsecond)`
        : sql`${sqliteNow} + ${ttlMs}`;
  const lockNow =
    ctx.dialect === "postgresql"
      ? sql`clock_timestamp()`
      : ctx.dialect === "mysql"
        ? sql`utc_timestamp(3)`
        : sqliteNow;

  async function takeLock(key: string, holder: string, ttlMs: number): Promise<boolean> {
    if (ctx.dialect !== "mysql") {
      const rows = await db
        .insert(t.accountLocks)
        .values({ key, holder, expires: lockUntil(ttlMs) })
        .onConflictDoUpdate({
          target: l.key,
          set: { holder: ctx.proposed(l.holder), expires: ctx.proposed(l.expires) },
          setWhere: sql`${l.expires} <= ${lockNow}`,
        })
        .returning({ holder: l.holder });
      return rows.length > 0;
    }
    try {
      await ctx.run(insertOf(t.accountLocks, { key, holder, expires: lockUntil(ttlMs) }));
      return true;
    } catch (error) {
      if ((driverError(error) as { errno?: unknown }).errno !== 1062) throw error;
      // Held, or expired: the one update that still sees it expired takes it over.
      const result = await db
        .update(t.accountLocks)
        .set({ holder, expires: lockUntil(ttlMs) })
        .where(and(eq(l.key, key), sql`${l.expires} <= ${lockNow}`));
      return ctx.affected(result) > 0;
    }
  }

  return {
    async createUser(user: AdapterUser): Promise<AdapterUser> {
      const values: Row = {
        ...user,
        id: user.id || randomUUID(),
        name: user.name ?? null,
        email: user.email ?? "",
        emailVerified: user.emailVerified ?? null,
        image: user.image ?? null,
      };
      const stored = Object.fromEntries(
        Object.entries(values).filter(([f, v]) => userColumns.has(f) && v !== undefined),
      );
      await ctx.run(insertOf(t.users, stored));
      return userOf(stored);
    },
    async getUser(id: string): Promise<AdapterUser | null> {
      const row = await ctx.first(t.users, userFields, eq(u.id, id));
      return row ? userOf(row) : null;
    },
    async getUserByEmail(email: string): Promise<AdapterUser | null> {
      if (!email) return null;
      // On MySQL the unique index is on `email_key` (NULL for ''); elsewhere it is partial.
      const where = u.emailKey ? eq(u.emailKey, email) : and(eq(u.email, email), ne(u.email, ""));
      const row = await ctx.first(t.users, userFields, where);
      return row ? userOf(row) : null;
    },
    async getUserByAccount(key: AccountKey): Promise<AdapterUser | null> {
      const rows = await db
        .select(userFields)
        .from(t.users)
        .innerJoin(t.accounts, eq(a.userId, u.id))
        .where(accountWhere(key))
        .limit(1);
      return rows[0] ? userOf(rows[0]) : null;
    },
    async updateUser(patch: Partial<AdapterUser> & Pick<AdapterUser, "id">): Promise<AdapterUser> {
      const set: Row = {};
      for (const [field, value] of Object.entries(patch)) {
        if (field === "id" || value === undefined || !userColumns.has(field)) continue;
        set[field] = field === "email" ? (value ?? "") : value;
      }
      const where = eq(u.id, patch.id);
      const row = Object.keys(set).length
        ? await ctx.updated(t.users, userFields, set, where, where)
        : await ctx.first(t.users, userFields, where);
      return userOf(row ?? fail("no user with this id"));
    },
    async deleteUser(userId: string): Promise<AdapterUser | null> {
      // Explicit deletes rather than trusting ON DELETE CASCADE, which SQLite enforces only with
      // PRAGMA foreign_keys = ON, and an app's own tables may not declare.
      await db.delete(t.sessions).where(eq(column(t.sessions, "userId"), userId));
      await db.delete(t.accounts).where(eq(a.userId, userId));
      await db.delete(t.authenticators).where(eq(column(t.authenticators, "userId"), userId));
      const row = await ctx.deleted(t.users, userFields, eq(u.id, userId));
      return row ? userOf(row) : null;
    },

    linkAccount(account: AdapterAccount): Promise<AdapterAccount> {
      const id = typeof account.id === "string" && account.id ? account.id : randomUUID();
      const values: Row = { id };
      for (const field of ACCOUNT_FIELDS.slice(1)) {
        const value = (account as Row)[field];
        if (value !== undefined && value !== null) values[field] = value;
      }
      return onAccounts(async (missing) => {
        const stored = writable(values, missing, ACCOUNT_NEEDED);
        await ctx.run(insertOf(t.accounts, stored));
        return toAccount(stored);
      });
    },
    unlinkAccount(key: AccountKey): Promise<AdapterAccount | undefined> {
      return onAccounts(async (missing) => {
        const row = await ctx.deleted(t.accounts, accountFields(missing), accountWhere(key));
        return row ? accountOf(row) : undefined;
      });
    },
    getAccount(providerAccountId: string, provider: string): Promise<AdapterAccount | null> {
      return onAccounts(async (missing) => {
        const where = accountWhere({ provider, providerAccountId });
        const row = await ctx.first(t.accounts, accountFields(missing), where);
        return row ? accountOf(row) : null;
      });
    },
    updateAccount(
      patch: Partial<AdapterAccount> & AccountKey,
      options: { ifRefreshToken?: string | null } = {},
    ): Promise<AdapterAccount | null> {
      const key = accountWhere(patch);
      const cas = options.ifRefreshToken;
      const where =
        cas === undefined
          ? key
          : and(key, cas === null ? isNull(a.refresh_token) : eq(a.refresh_token, cas));
      return onAccounts(async (missing) => {
        const set = writable(accountPatch(patch), missing, ACCOUNT_NEEDED);
        const fields = accountFields(missing);
        const row = Object.keys(set).length
          ? await ctx.updated(t.accounts, fields, set, where, key)
          : await ctx.first(t.accounts, fields, where);
        return row ? accountOf(row) : null;
      });
    },
    async lockAccount(
      { provider, providerAccountId }: AccountKey,
      ttlMs: number,
    ): Promise<(() => Promise<void>) | null> {
      if (!(Number.isFinite(ttlMs) && ttlMs > 0)) fail("lockAccount needs a positive ttlMs");
      const key = fittedKey(ctx.dialect, JSON.stringify([provider, providerAccountId]));
      const holder = randomUUID();
      if (!(await takeLock(key, holder, Math.ceil(ttlMs)))) return null;
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        // Only while it is still this holder's: an expired lock may have been taken over.
        await db.delete(t.accountLocks).where(and(eq(l.key, key), eq(l.holder, holder)));
      };
    },
    listAccountsByUserId(userId: string): Promise<AdapterAccount[]> {
      return onAccounts(async (missing) => {
        const rows = await db
          .select(accountFields(missing))
          .from(t.accounts)
          .where(eq(a.userId, userId))
          .orderBy(asc(a.provider), asc(a.providerAccountId));
        return rows.map(accountOf);
      });
    },
  };
}
