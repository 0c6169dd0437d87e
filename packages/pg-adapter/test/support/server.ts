/**
 * The PostgreSQL server the tests use, and whether it answers. Outside CI an unreachable server
 * skips the server suites with a printed reason; with CI=true it fails the run.
 */
import { randomBytes } from "node:crypto";
import { Client } from "pg";

export const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

async function probe(): Promise<boolean> {
  const client = new Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch (cause) {
    const reason = `PostgreSQL at ${redact(DATABASE_URL)} is unreachable (${String(
      (cause as Error)?.message ?? cause,
    )})`;
    if (process.env.CI === "true") throw new Error(`${reason}; CI needs it`, { cause });
    console.warn(`[pg-adapter] skipping the PostgreSQL server suites: ${reason}`);
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/** The URL without its password, for messages. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.href;
  } catch {
    return "DATABASE_URL";
  }
}

/** Whether the server answered within 2 s. Probed once per test file. */
export const serverReachable: boolean = await probe();

/** A fresh schema name for one test file or describe block. */
export const freshSchemaName = (): string => `gh_test_${randomBytes(6).toString("hex")}`;

/** A fresh `application_name`, so a test can find its own connections in pg_stat_activity. */
export const freshAppName = (): string => `gatehouse-pg-test-${randomBytes(6).toString("hex")}`;
