/**
 * The upgrade promise on MySQL/MariaDB and SQLite (docs/upgrading.md): a database in the
 * previous layout (fixtures/mysql-0.1.0.sql, fixtures/sqlite-0.1.0.sql, without the newest
 * optional columns) holding rows is brought up to date by `gatehouse migrate`; then every suite of
 * `@gatehousejs/adapter-test` passes on it through the Drizzle adapter, and the session written
 * before the upgrade still signs its user in. (upgrade.test.ts checks the rows column by column
 * and runs the suites through pg-adapter on PostgreSQL.)
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  runAdapterTests,
  runRateLimitStoreTests,
  runRevocationStoreTests,
  runSecurityEventStoreTests,
} from "@gatehousejs/adapter-test";
import {
  DrizzleAdapter,
  DrizzleRateLimitStore,
  DrizzleRevocationStore,
  DrizzleSecurityEventStore,
} from "@gatehousejs/drizzle-adapter";
import Database from "better-sqlite3";
import { drizzle as sqliteDrizzle } from "drizzle-orm/better-sqlite3";
import { drizzle as mysqlDrizzle } from "drizzle-orm/mysql2";
import mysql from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCli, gatehouse } from "./support/cli.js";
import { freshName, MYSQL_URL, mysqlReachable, tempDir } from "./support/servers.js";

beforeAll(buildCli, 180_000);

const fixture = (name: string) => readFileSync(join(import.meta.dirname, "fixtures", name), "utf8");
const statementsOf = (script: string) =>
  script
    .split(/;\n/)
    .map((s) => s.replace(/^--.*$/gm, "").trim())
    .filter(Boolean);

const EXPIRES = new Date("2099-01-01T00:00:00.000Z");
/** Rows of the older release: a user, an OAuth account and a database session. */
const olderRows = (time: string | number, quote: (name: string) => string) => [
  "INSERT INTO users (id, name, email) VALUES ('before-1', 'Ada', 'ada-before@example.com')",
  `INSERT INTO accounts (id, ${quote("userId")}, type, provider, ${quote("providerAccountId")}, access_token) VALUES ('acc-1', 'before-1', 'oauth', 'github', 'gh-before', 'at-before')`,
  `INSERT INTO sessions (id, ${quote("sessionToken")}, ${quote("userId")}, expires) VALUES ('s-1', 'st-before', 'before-1', ${time})`,
];

type Adapter = ReturnType<typeof DrizzleAdapter>;

/** What must hold of the rows written before the upgrade, read through the adapter. */
async function keptRows(adapter: Adapter): Promise<void> {
  const found = await adapter.getSessionAndUser("st-before");
  expect(found?.user).toMatchObject({ id: "before-1", email: "ada-before@example.com" });
  expect(found?.session.expires).toEqual(EXPIRES);
  const account = await adapter.getUserByAccount({
    provider: "github",
    providerAccountId: "gh-before",
  });
  expect(account?.id).toBe("before-1");
}

describe("an older SQLite database, migrated, through the Drizzle adapter", () => {
  const tmp = tempDir();
  const file = join(tmp.dir, "app.db");
  const sqlite = new Database(file);
  const db = sqliteDrizzle(sqlite);
  const adapter = DrizzleAdapter(db);

  beforeAll(async () => {
    sqlite.exec(fixture("sqlite-0.1.0.sql"));
    for (const sql of olderRows(EXPIRES.getTime(), (n) => `"${n}"`)) sqlite.exec(sql);
    const run = await gatehouse(["migrate", "--all", "--url", `file:${file}`]);
    expect(run.status, run.stderr).toBe(0);
  }, 60_000);
  afterAll(() => {
    sqlite.close();
    tmp.remove();
  });

  it("keeps the rows written before the upgrade", () => keptRows(adapter));

  runAdapterTests({ name: "Drizzle on an upgraded SQLite database", adapter });
  runRevocationStoreTests({
    name: "Drizzle revocation store, upgraded SQLite",
    store: DrizzleRevocationStore(db),
  });
  runSecurityEventStoreTests({
    name: "Drizzle security log, upgraded SQLite",
    store: DrizzleSecurityEventStore(db),
  });
  runRateLimitStoreTests({
    name: "Drizzle rate limits, upgraded SQLite",
    store: DrizzleRateLimitStore(db),
  });
});

describe.runIf(mysqlReachable)(
  "an older MySQL database, migrated, through the Drizzle adapter",
  () => {
    const database = freshName("gh_upgrade");
    const url = new URL(MYSQL_URL);
    url.pathname = `/${database}`;
    // The pool connects on first use, after beforeAll made the database.
    const pool = mysql.createPool({ uri: url.href, connectionLimit: 10, timezone: "Z" });
    const db = mysqlDrizzle({ client: pool });
    const adapter = DrizzleAdapter(db);

    beforeAll(async () => {
      const admin = await mysql.createConnection({ uri: MYSQL_URL });
      await admin.query(`CREATE DATABASE \`${database}\``);
      await admin.end();
      for (const sql of statementsOf(fixture("mysql-0.1.0.sql"))) await pool.query(sql);
      for (const sql of olderRows("'2099-01-01 00:00:00.000'", (n) => n)) await pool.query(sql);
      const run = await gatehouse(["migrate", "--all", "--url", url.href]);
      expect(run.status, run.stderr).toBe(0);
    }, 60_000);
    afterAll(async () => {
      await pool.end();
      const admin = await mysql.createConnection({ uri: MYSQL_URL });
      await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
      await admin.end();
    });

    it("keeps the rows written before the upgrade", () => keptRows(adapter));

    runAdapterTests({ name: "Drizzle on an upgraded MySQL database", adapter });
    runRevocationStoreTests({
      name: "Drizzle revocation store, upgraded MySQL",
      store: DrizzleRevocationStore(db),
    });
    runSecurityEventStoreTests({
      name: "Drizzle security log, upgraded MySQL",
      store: DrizzleSecurityEventStore(db),
    });
    runRateLimitStoreTests({
      name: "Drizzle rate limits, upgraded MySQL",
      store: DrizzleRateLimitStore(db),
    });
  },
);
