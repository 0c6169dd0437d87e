/**
 * Each database the tests run on, opened fresh (a new PostgreSQL schema, a new MariaDB database,
 * a new SQLite file) with the tables made by `sqlStatements` of `@gatehousejs/cli/schema`, and
 * dropped at the end.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { sqlStatements } from "@gatehousejs/cli/schema";
import { createClient } from "@libsql/client";
import Database from "better-sqlite3";
import type { Logger } from "drizzle-orm";
import { drizzle as betterSqlite } from "drizzle-orm/better-sqlite3";
import { drizzle as libsql } from "drizzle-orm/libsql";
import { drizzle as mysqlDrizzle } from "drizzle-orm/mysql2";
import { drizzle as nodePostgres } from "drizzle-orm/node-postgres";
import { drizzle as pglite } from "drizzle-orm/pglite";
import mysql from "mysql2/promise";
import pg from "pg";
import type { Dialect, DrizzleDatabase } from "../../src/index.js";
import { DATABASE_URL, MARIADB_URL } from "./servers.js";

export type Row = Record<string, unknown>;

/**
 * A database: the Drizzle db (made at once, so that suites can be registered with it), the
 * tables (made by `setup`), the driver underneath for direct reads, and cleanup.
 */
export interface Harness {
  name: string;
  /** Creates the database or schema and the tables. */
  setup(): Promise<void>;
  dialect: Dialect;
  db: DrizzleDatabase;
  /** Another Drizzle db over the same connection(s), with `logger`. */
  withLogger(logger: Logger): DrizzleDatabase;
  /** A statement run by the driver itself; `?` placeholders on every dialect. */
  query(text: string, params?: unknown[]): Promise<Row[]>;
  /** A quoted identifier. */
  quote(name: string): string;
  close(): Promise<void>;
}

const hex = () => randomBytes(6).toString("hex");
const dollars = (text: string) => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};
const doubleQuoted = (name: string) => `"${name}"`;

/** A pg Pool on a fresh schema (the pool's search_path), dropped by `close`. */
export function openNodePostgres(max = 20): Harness {
  const schema = `gh_drizzle_${hex()}`;
  const pool = new pg.Pool({
    connectionString: DATABASE_URL,
    max,
    options: `-c search_path=${schema}`,
  });
  pool.on("error", () => {});
  return {
    name: "PostgreSQL server (node-postgres Pool)",
    async setup() {
      for (const statement of sqlStatements("postgresql", { schema })) await pool.query(statement);
    },
    dialect: "postgresql",
    db: nodePostgres({ client: pool }),
    withLogger: (logger) => nodePostgres({ client: pool, logger }),
    query: async (text, params) => (await pool.query(dollars(text), params)).rows,
    quote: doubleQuoted,
    async close() {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    },
  };
}

/** PGlite in memory. */
export function openPglite(): Harness {
  const client = new PGlite();
  return {
    name: "PGlite",
    async setup() {
      for (const statement of sqlStatements("postgresql")) await client.exec(statement);
    },
    dialect: "postgresql",
    db: pglite({ client }),
    withLogger: (logger) => pglite({ client, logger }),
    query: async (text, params) => (await client.query<Row>(dollars(text), params)).rows,
    quote: doubleQuoted,
    close: () => client.close(),
  };
}

/** A mysql2 pool on a fresh MariaDB database, dropped by `close`. */
export function openMariadb(connectionLimit = 20): Harness {
  const database = `gh_drizzle_${hex()}`;
  const url = Object.assign(new URL(MARIADB_URL), { pathname: `/${database}` }).href;
  // The driver's own dates (in the readers) are read as UTC, as the adapter writes them.
  const pool = mysql.createPool({ uri: url, connectionLimit, timezone: "Z" });
  return {
    name: "MariaDB (mysql2 pool)",
    async setup() {
      // The pool connects at its first query, once the database exists.
      const admin = await mysql.createConnection({ uri: MARIADB_URL });
      await admin.query(`CREATE DATABASE \`${database}\``);
      await admin.end();
      for (const statement of sqlStatements("mysql")) await pool.query(statement);
    },
    dialect: "mysql",
    db: mysqlDrizzle({ client: pool }),
    withLogger: (logger) => mysqlDrizzle({ client: pool, logger }),
    query: async (text, params) =>
      (await pool.query(text.replaceAll('"', "`"), params))[0] as Row[],
    quote: (name) => `\`${name}\``,
    async close() {
      await pool.query(`DROP DATABASE IF EXISTS \`${database}\``);
      await pool.end();
    },
  };
}

function sqliteFile() {
  const dir = mkdtempSync(join(tmpdir(), "gh-drizzle-"));
  return { dir, path: join(dir, "gatehouse.db") };
}

/** better-sqlite3 on a file in a temporary folder. */
export function openBetterSqlite(): Harness {
  const { dir, path } = sqliteFile();
  const client = new Database(path);
  return {
    name: "SQLite (better-sqlite3)",
    async setup() {
      // WAL, as an app on a file should run it: a commit is not one fsync of the whole journal.
      client.pragma("journal_mode = WAL");
      for (const statement of sqlStatements("sqlite")) client.exec(statement);
    },
    dialect: "sqlite",
    db: betterSqlite({ client }),
    withLogger: (logger) => betterSqlite({ client, logger }),
    query: async (text, params = []) => {
      const statement = client.prepare(text);
      if (statement.reader) return statement.all(...params) as Row[];
      statement.run(...params);
      return [];
    },
    quote: doubleQuoted,
    async close() {
      client.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** libSQL on a file in a temporary folder. */
export function openLibsql(): Harness {
  const { dir, path } = sqliteFile();
  const client = createClient({ url: `file:${path}` });
  return {
    name: "SQLite (libSQL file)",
    async setup() {
      await client.execute("PRAGMA journal_mode = WAL");
      for (const statement of sqlStatements("sqlite")) await client.execute(statement);
    },
    dialect: "sqlite",
    db: libsql({ client }),
    withLogger: (logger) => libsql({ client, logger }),
    query: async (text, params = []) =>
      (await client.execute({ sql: text, args: params as never })).rows.map((r) => ({ ...r })),
    quote: doubleQuoted,
    async close() {
      client.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
