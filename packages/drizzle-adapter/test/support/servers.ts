/**
 * The database servers the tests use, and whether they answer. Outside CI an unreachable server
 * skips its suites with a printed reason; with CI=true it fails the run.
 */
import mysql from "mysql2/promise";
import pg from "pg";

export const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
export const MARIADB_URL = process.env.MARIADB_URL ?? "mysql://root@127.0.0.1:3306/test";

/** The URL without its password, for messages. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.href;
  } catch {
    return "the database URL";
  }
}

async function probe(what: string, url: string, check: () => Promise<unknown>): Promise<boolean> {
  try {
    await check();
    return true;
  } catch (cause) {
    const reason = `${what} at ${redact(url)} is unreachable (${String(
      (cause as Error)?.message ?? cause,
    )})`;
    if (process.env.CI === "true") throw new Error(`${reason}; CI needs it`, { cause });
    console.warn(`[drizzle-adapter] skipping the ${what} suites: ${reason}`);
    return false;
  }
}

/** Whether PostgreSQL answered within 2 s. */
export const postgresReachable = (): Promise<boolean> =>
  probe("PostgreSQL", DATABASE_URL, async () => {
    const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      await client.query("SELECT 1");
    } finally {
      await client.end().catch(() => {});
    }
  });

/** Whether MariaDB (or MySQL) answered within 2 s. */
export const mariadbReachable = (): Promise<boolean> =>
  probe("MariaDB", MARIADB_URL, async () => {
    const connection = await mysql.createConnection({ uri: MARIADB_URL, connectTimeout: 2000 });
    try {
      await connection.query("SELECT 1");
    } finally {
      await connection.end().catch(() => {});
    }
  });
