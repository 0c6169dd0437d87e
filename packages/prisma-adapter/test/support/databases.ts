/**
 * The three databases the tests run on, each fresh for one test file: a new PostgreSQL schema, a
 * new MariaDB database, a new SQLite file. The tables come from `@gatehousejs/cli/schema`
 * (`sqlStatements`), as `gatehouse migrate` creates them, so the tests prove that the CLI's DDL
 * and this package's Prisma models fit. Outside CI an unreachable server skips its file with a
 * printed reason; with CI=true it fails the run.
 */
import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AdapterTestDb } from "@gatehousejs/adapter-test";
import { sqlStatements } from "@gatehousejs/cli/schema";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaMariaDb } from "@prisma/adapter-mariadb";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import type { PrismaAdapterOptions } from "../../src/index.js";
import {
  type Dialect,
  type GeneratedClient,
  type GeneratedPrisma,
  generatedClient,
} from "./generate.js";
import { readers } from "./readers.js";

export const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
export const MYSQL = {
  host: process.env.MYSQL_HOST ?? "127.0.0.1",
  port: Number(process.env.MYSQL_PORT ?? 3306),
  user: process.env.MYSQL_USER ?? "root",
  database: process.env.MYSQL_DATABASE ?? "test",
};

/** A database opened for one test file. */
export interface Opened {
  dialect: Dialect;
  /** The generated client the adapter uses, logging every query to `queries`. */
  prisma: GeneratedPrisma;
  /** The adapter's options for this database (the PostgreSQL schema). */
  options: PrismaAdapterOptions;
  /** Every SQL statement `prisma` sent, in order; clear it to count a call's queries. */
  queries: string[];
  /** Direct readers of the tables, in SQL, for `runAdapterTests`. */
  readers: AdapterTestDb;
  /** Runs SQL outside the adapter (a raw read for the storage-format checks). */
  sql(query: string, ...values: unknown[]): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

/** The host and port of a URL, without its credentials, for messages. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "DATABASE_URL";
  }
}

const fresh = () => `gh_prisma_${randomBytes(6).toString("hex")}`;

function withLog(PrismaClient: GeneratedClient, adapter: unknown) {
  const prisma = new PrismaClient({ adapter, log: [{ emit: "event", level: "query" }] });
  const queries: string[] = [];
  prisma.$on("query", (event) => queries.push(event.query));
  return { prisma, queries };
}

/** Whether `probe` answers; with CI=true an unreachable server throws instead of skipping. */
async function reachable(what: string, probe: () => Promise<unknown>): Promise<boolean> {
  try {
    await probe();
    return true;
  } catch (cause) {
    const reason = `${what} is unreachable (${String((cause as Error)?.message ?? cause)})`;
    if (process.env.CI === "true") throw new Error(`${reason}; CI needs it`, { cause });
    console.warn(`[prisma-adapter] skipping the ${what} suites: ${reason}`);
    return false;
  }
}

async function openPostgres(PrismaClient: GeneratedClient): Promise<Opened | null> {
  const ok = await reachable(`PostgreSQL at ${hostOf(DATABASE_URL)}`, async () => {
    const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      await client.query("SELECT 1");
    } finally {
      await client.end().catch(() => {});
    }
  });
  if (!ok) return null;
  const schema = fresh();
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
  pool.on("error", () => {});
  for (const statement of sqlStatements("postgresql", { schema })) await pool.query(statement);
  // No search_path: the adapter's raw statements find the schema through options.schema.
  const { prisma, queries } = withLog(
    PrismaClient,
    new PrismaPg({ connectionString: DATABASE_URL, max: 20 }, { schema }),
  );
  const sql = async (query: string, ...values: unknown[]) =>
    (await pool.query(query, values)).rows as Record<string, unknown>[];
  return {
    dialect: "postgresql",
    prisma,
    options: { schema },
    queries,
    readers: readers("postgresql", sql, (t) => `"${schema}"."${t}"`),
    sql,
    async close() {
      await prisma.$disconnect();
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    },
  };
}

async function openMysql(PrismaClient: GeneratedClient): Promise<Opened | null> {
  const admin = new PrismaClient({
    adapter: new PrismaMariaDb({
      ...MYSQL,
      connectTimeout: 2000,
      acquireTimeout: 3000,
      connectionLimit: 2,
    }),
  });
  const ok = await reachable(`MariaDB at ${MYSQL.host}:${MYSQL.port}`, () =>
    admin.$queryRawUnsafe("SELECT 1"),
  );
  if (!ok) {
    await admin.$disconnect().catch(() => {});
    return null;
  }
  const database = fresh();
  await admin.$executeRawUnsafe(
    `CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`,
  );
  const { prisma, queries } = withLog(
    PrismaClient,
    new PrismaMariaDb({ ...MYSQL, database, connectionLimit: 20 }, { database }),
  );
  for (const statement of sqlStatements("mysql")) await prisma.$executeRawUnsafe(statement);
  const sql = (query: string, ...values: unknown[]) => admin.$queryRawUnsafe(query, ...values);
  return {
    dialect: "mysql",
    prisma,
    options: {},
    queries,
    readers: readers("mysql", sql, (t) => `\`${database}\`.\`${t}\``),
    sql,
    async close() {
      await prisma.$disconnect();
      await admin.$executeRawUnsafe(`DROP DATABASE IF EXISTS \`${database}\``);
      await admin.$disconnect();
    },
  };
}

async function openSqlite(PrismaClient: GeneratedClient): Promise<Opened> {
  const file = join(tmpdir(), `${fresh()}.db`);
  const { prisma, queries } = withLog(
    PrismaClient,
    new PrismaBetterSqlite3({ url: file }, { timestampFormat: "unixepoch-ms" }),
  );
  for (const statement of sqlStatements("sqlite")) await prisma.$executeRawUnsafe(statement);
  const sql = (query: string, ...values: unknown[]) => prisma.$queryRawUnsafe(query, ...values);
  return {
    dialect: "sqlite",
    prisma,
    options: {},
    queries,
    readers: readers("sqlite", sql, (t) => `"${t}"`),
    sql,
    async close() {
      await prisma.$disconnect();
      for (const suffix of ["", "-wal", "-shm", "-journal"])
        await rm(`${file}${suffix}`, { force: true });
    },
  };
}

/**
 * Generates the dialect's client (once) and opens a fresh database for it, or `null` when its
 * server is unreachable outside CI.
 */
export async function open(dialect: Dialect): Promise<Opened | null> {
  const PrismaClient = await generatedClient(dialect);
  if (dialect === "postgresql") return openPostgres(PrismaClient);
  if (dialect === "mysql") return openMysql(PrismaClient);
  return openSqlite(PrismaClient);
}
