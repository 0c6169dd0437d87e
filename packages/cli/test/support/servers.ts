/**
 * The database servers the tests use, and whether they answer. Outside CI an unreachable server
 * skips its suites with a printed reason; with CI=true it fails the run.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import mysql from "mysql2/promise";
import pg from "pg";

export const PG_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
export const MYSQL_URL = process.env.MYSQL_URL ?? "mysql://root@127.0.0.1:3306/test";

function unreachable(what: string, cause: unknown): false {
  const reason = `${what} is unreachable (${String((cause as Error)?.message ?? cause)})`;
  if (process.env.CI === "true") throw new Error(`${reason}; CI needs it`, { cause });
  console.warn(`[cli] skipping the ${what} suites: ${reason}`);
  return false;
}

async function probePostgres(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch (cause) {
    return unreachable("PostgreSQL", cause);
  } finally {
    await client.end().catch(() => {});
  }
}

async function probeMysql(): Promise<boolean> {
  try {
    const conn = await mysql.createConnection({ uri: MYSQL_URL, connectTimeout: 2000 });
    await conn.query("SELECT 1");
    await conn.end();
    return true;
  } catch (cause) {
    return unreachable("MySQL/MariaDB", cause);
  }
}

/** Whether PostgreSQL answered within 2 s (probed once per test file). */
export const postgresReachable: boolean = await probePostgres();
/** Whether MySQL/MariaDB answered within 2 s (probed once per test file). */
export const mysqlReachable: boolean = await probeMysql();

/** A fresh name for a schema or database of one test. */
export const freshName = (prefix = "gh_cli"): string =>
  `${prefix}_${randomBytes(6).toString("hex")}`;

/** The server's URL with `schema` as the search_path. */
export function postgresSchemaUrl(schema: string): string {
  const url = new URL(PG_URL);
  url.searchParams.set("options", `-c search_path=${schema}`);
  return url.href;
}

/** A fresh PostgreSQL schema: its name, a URL whose search_path is it, and its removal. */
export async function freshPostgresSchema(schema = freshName()): Promise<{
  schema: string;
  url: string;
  drop: () => Promise<void>;
}> {
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA "${schema}"`);
  await admin.end();
  return {
    schema,
    url: postgresSchemaUrl(schema),
    drop: async () => {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await c.end();
    },
  };
}

/** A fresh MySQL database: its name, a URL to it, and its removal. */
export async function freshMysqlDatabase(): Promise<{
  database: string;
  url: string;
  drop: () => Promise<void>;
}> {
  const database = freshName();
  const admin = await mysql.createConnection({ uri: MYSQL_URL });
  await admin.query(`CREATE DATABASE \`${database}\``);
  await admin.end();
  const url = new URL(MYSQL_URL);
  url.pathname = `/${database}`;
  return {
    database,
    url: url.href,
    drop: async () => {
      const c = await mysql.createConnection({ uri: MYSQL_URL });
      await c.query(`DROP DATABASE IF EXISTS \`${database}\``);
      await c.end();
    },
  };
}

/** A temporary folder, and its removal. */
export function tempDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-cli-"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
