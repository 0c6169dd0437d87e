/**
 * What differs between Drizzle's three SQL dialects, in one place: how the database is
 * recognised, how a raw statement is run and its rows or affected count read, how an upsert
 * names the proposed row, and what a driver's error for a missing column looks like.
 */
import { createHash } from "node:crypto";
import { DrizzleError, getTableColumns, is, SQL, sql, type Table } from "drizzle-orm";
import { MySqlDatabase } from "drizzle-orm/mysql-core";
import { PgDatabase } from "drizzle-orm/pg-core";
import { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";
import type { Row } from "./rows.js";

/** The SQL dialects the adapter speaks. */
export type Dialect = "postgresql" | "mysql" | "sqlite";

/**
 * A Drizzle database of any dialect: `drizzle-orm/node-postgres`, `drizzle-orm/pglite` (or any
 * other PostgreSQL driver), `drizzle-orm/mysql2`, `drizzle-orm/better-sqlite3`,
 * `drizzle-orm/libsql`.
 */
export type DrizzleDatabase =
  // biome-ignore lint/suspicious/noExplicitAny: a database of any schema and driver is accepted
  | PgDatabase<any, any, any>
  // biome-ignore lint/suspicious/noExplicitAny: as above
  | MySqlDatabase<any, any, any, any>
  // biome-ignore lint/suspicious/noExplicitAny: as above
  | BaseSQLiteDatabase<any, any, any, any>;

/** The dialect of `db`, from the class Drizzle built it with. */
export function dialectOf(db: unknown): Dialect {
  if (is(db, PgDatabase)) return "postgresql";
  if (is(db, MySqlDatabase)) return "mysql";
  if (is(db, BaseSQLiteDatabase)) return "sqlite";
  throw new TypeError(
    "DrizzleAdapter: db must be a Drizzle database (drizzle-orm/node-postgres, pglite, mysql2, better-sqlite3 or libsql)",
  );
}

/**
 * The query builder as the adapter uses it, the same on every dialect. Each dialect's builder
 * has these methods (those a dialect lacks are never called on it).
 */
export interface Query<T = Row[]> extends PromiseLike<T> {
  from(table: unknown): Query<T>;
  innerJoin(table: unknown, on: unknown): Query<T>;
  where(condition: unknown): Query<T>;
  orderBy(...columns: unknown[]): Query<T>;
  limit(count: number): Query<T>;
  for(strength: "update"): Query<T>;
  set(values: unknown): Query<T>;
  values(values: unknown): Query<T>;
  returning(fields?: unknown): Query<Row[]>;
  onConflictDoUpdate(config: unknown): Query<T>;
  onConflictDoNothing(config?: unknown): Query<T>;
  onDuplicateKeyUpdate(config: unknown): Query<T>;
  /** A prepared statement (named on PostgreSQL) whose placeholders `execute` fills. */
  prepare(name?: string): { execute(values?: Record<string, unknown>): unknown };
  toSQL(): { sql: string };
}

/** A database or a transaction, untyped by schema. */
export interface Db {
  select(fields?: unknown): Query;
  insert(table: unknown): Query<unknown>;
  update(table: unknown): Query<unknown>;
  delete(table: unknown): Query<unknown>;
  execute(query: SQL): Promise<unknown>;
  all(query: SQL): Promise<unknown>;
  run(query: SQL): Promise<unknown>;
  transaction<T>(work: (tx: Db) => Promise<T>): Promise<T>;
}

/**
 * The driver's own error in place of Drizzle's wrapper: the wrapper's message carries the
 * statement's parameters (tokens, hashes), which must not reach a log; the driver's error keeps
 * its code (SQLSTATE `23505`, `ER_DUP_ENTRY`, `SQLITE_CONSTRAINT_UNIQUE`).
 */
export function driverError(error: unknown): unknown {
  if (!(error instanceof Error) || error.cause === undefined) return error;
  // Drizzle 0.44+ wraps a failed query in DrizzleQueryError (it has `query` and `params`; matched
  // by shape, as older versions have no such class); better-sqlite3's raw runs in DrizzleError.
  const wrapped = ("query" in error && "params" in error) || is(error, DrizzleError);
  return wrapped ? error.cause : error;
}

/** Runs `work`, throwing the driver's error rather than Drizzle's wrapper. */
export async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw driverError(error);
  }
}

/** The operations whose SQL differs by dialect. */
export interface Dialected {
  dialect: Dialect;
  db: Db;
  /** Runs a statement that returns rows, as the driver returns them (no column mapping). */
  rows(query: SQL, on?: Db): Promise<Row[]>;
  /** Runs a statement that returns nothing. */
  run(query: SQL, on?: Db): Promise<unknown>;
  /** How many rows a write (MySQL) matched. */
  affected(result: unknown): number;
  /** The proposed value of `column` inside an upsert's update. */
  proposed(column: SQL.Aliased | { name: string }): SQL;
  /** The larger of two values. */
  greatest(a: unknown, b: unknown): SQL;
  /** `DELETE`/`UPDATE … RETURNING` exists (PostgreSQL, SQLite). */
  returning: boolean;
}

export function dialected(database: DrizzleDatabase): Dialected {
  const dialect = dialectOf(database);
  const db = database as unknown as Db;
  const mysql = dialect === "mysql";
  return {
    dialect,
    db,
    async rows(query, on = db) {
      if (dialect === "postgresql") {
        // node-postgres, PGlite and Neon answer `{ rows }`; postgres.js answers the rows.
        const result = (await on.execute(query)) as Row[] | { rows: Row[] };
        return Array.isArray(result) ? result : result.rows;
      }
      if (mysql) return ((await on.execute(query)) as [Row[]])[0];
      return (await on.all(query)) as Row[];
    },
    run: (query, on = db) => (dialect === "sqlite" ? on.run(query) : on.execute(query)),
    affected(result) {
      const header = (Array.isArray(result) ? result[0] : result) as {
        affectedRows?: number;
        rowCount?: number;
        changes?: number;
        rowsAffected?: number;
      };
      return Number(
        header?.affectedRows ?? header?.rowCount ?? header?.changes ?? header?.rowsAffected ?? 0,
      );
    },
    proposed: (column) =>
      mysql
        ? sql`values(${sql.identifier((column as { name: string }).name)})`
        : sql`excluded.${sql.identifier((column as { name: string }).name)}`,
    greatest: (a, b) => (dialect === "sqlite" ? sql`max(${a}, ${b})` : sql`greatest(${a}, ${b})`),
    returning: !mysql,
  };
}

/**
 * `INSERT INTO table (…) VALUES (…)` with only the fields of `values` that are defined: unlike
 * Drizzle's insert, which names every column of the table, it still works on a table that lacks
 * an optional column nobody writes. Values are encoded by their columns (dates, JSON, booleans).
 */
export function insertOf(table: Table, values: Row): SQL {
  const columns = getTableColumns(table);
  const given = Object.entries(values).filter(
    ([field, value]) => value !== undefined && columns[field] !== undefined,
  );
  const names = given.map(([field]) => sql.identifier(columns[field]!.name));
  // A value that is SQL (the database's clock, say) is written as it is.
  const params = given.map(([field, value]) =>
    is(value, SQL) ? value : sql.param(value, columns[field]),
  );
  return sql`insert into ${table} (${sql.join(names, sql`, `)}) values (${sql.join(params, sql`, `)})`;
}

/**
 * The column named by a driver's "no such column" error, among `candidates` (SQL names), or
 * `undefined` for any other error. PostgreSQL: SQLSTATE 42703; MySQL/MariaDB: errno 1054;
 * SQLite: "no such column" / "has no column named".
 */
export function missingColumn(error: unknown, candidates: readonly string[]): string | undefined {
  const e = driverError(error) as { code?: unknown; errno?: unknown; message?: unknown };
  const message = typeof e?.message === "string" ? e.message : "";
  const isMissing =
    e?.code === "42703" ||
    e?.errno === 1054 ||
    e?.code === "ER_BAD_FIELD_ERROR" ||
    /no such column|has no column named/i.test(message);
  if (!isMissing) return undefined;
  const words = new Set(message.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []);
  return candidates.find((name) => words.has(name));
}

/** Whether `error` is a deadlock that the database resolved by rolling this transaction back. */
export function isDeadlock(error: unknown): boolean {
  const e = driverError(error) as { code?: unknown; errno?: unknown };
  return e?.errno === 1213 || e?.code === "ER_LOCK_DEADLOCK" || e?.code === "40P01";
}

/** SQLite's clock in Unix epoch milliseconds (`julianday` keeps the milliseconds). */
export const sqliteNow: SQL = sql`cast(round((julianday('now') - 2440587.5) * 86400000) as integer)`;

const HASHED = "sha256:";

/**
 * A key that fits MySQL's `varchar(255)` key columns: kept as it is when it is short, else its
 * SHA-256 (marked, so that no short key can be mistaken for a hashed one). Other dialects store
 * keys of any length in `text` and keep them as they are.
 */
export function fittedKey(dialect: Dialect, key: string): string {
  if (dialect !== "mysql" || (key.length <= 191 && !key.startsWith(HASHED))) return key;
  return HASHED + createHash("sha256").update(key).digest("hex");
}

/** Retries a MySQL transaction that InnoDB rolled back to break a deadlock. */
export async function retryDeadlocks<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= 10 || !isDeadlock(error)) throw error;
    }
  }
}

/**
 * A PostgreSQL statement name for `text`, the same for the same text: another table, schema or
 * set of columns gets another name, as a name may be prepared only once per connection.
 */
export function statementName(text: string): string {
  // FNV-1a over the text, twice with different seeds: 64 bits, no crypto needed.
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x811c9dc5) >>> 0;
  }
  return `gatehouse_${a.toString(36)}_${b.toString(36)}`;
}
