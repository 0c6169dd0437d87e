import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "../src/db/connect.js";
import { introspect } from "../src/db/introspect.js";
import { CliError } from "../src/errors.js";
import { migrateDatabase } from "../src/migrate/apply.js";
import { planMigration } from "../src/migrate/plan.js";
import { type Dialect, TABLES } from "../src/schema/index.js";
import { DATABASE_APP, MEMORY_MODULE } from "./support/apps.js";
import { appFolder, buildCli, gatehouse } from "./support/cli.js";
import {
  freshMysqlDatabase,
  freshName,
  freshPostgresSchema,
  mysqlReachable,
  PG_URL,
  postgresReachable,
  tempDir,
} from "./support/servers.js";

beforeAll(buildCli, 180_000);

const ALL = TABLES.map((t) => t.name).sort();

async function tablesOf(dialect: Dialect, url: string): Promise<string[]> {
  const conn = await connect(dialect, url);
  try {
    return [...(await introspect(conn)).keys()].sort();
  } finally {
    await conn.close();
  }
}

async function exec(dialect: Dialect, url: string, sql: string): Promise<void> {
  const conn = await connect(dialect, url);
  try {
    await conn.query(sql);
  } finally {
    await conn.close();
  }
}

interface Database {
  url: string;
  drop: () => Promise<void>;
}

function migrateSuite(dialect: Dialect, open: () => Promise<Database>) {
  describe(`gatehouse migrate on ${dialect}`, () => {
    let db: Database;
    beforeAll(async () => {
      db = await open();
    });
    afterAll(async () => db?.drop());
    const q = (name: string) => (dialect === "mysql" ? `\`${name}\`` : `"${name}"`);

    it("--dry-run prints the statements and changes nothing", async () => {
      const run = await gatehouse(["migrate", "--all", "--dry-run", "--url", db.url]);
      expect(run.status).toBe(0);
      // PostgreSQL names the connection's schema (its search_path) in every statement.
      expect(run.stdout).toMatch(
        /-- create users\nCREATE TABLE IF NOT EXISTS ("gh_cli_\w+"\.)?[`"]users[`"] \(/,
      );
      expect(run.stdout.match(/CREATE TABLE/g)).toHaveLength(TABLES.length);
      expect(run.stderr).toMatch(/statement\(s\) pending \(dry run: nothing was changed\)/);
      expect(await tablesOf(dialect, db.url)).toEqual([]);
    });

    it("creates every table, then has nothing to do", async () => {
      const first = await gatehouse(["migrate", "--all", "--url", db.url]);
      expect(first.stderr).toMatch(/Applied \d+ statement\(s\)/);
      expect(first.status).toBe(0);
      expect(await tablesOf(dialect, db.url)).toEqual(ALL);
      const again = await gatehouse(["migrate", "--all"], { env: { DATABASE_URL: db.url } });
      expect(again.status).toBe(0);
      expect(again.stderr).toMatch(/The database is up to date/);
      const dry = await gatehouse(["migrate", "--all", "--dry-run", "--url", db.url]);
      expect(dry.stdout).toBe("");
    });

    it("adds a missing column and index, keeps a column of the app's own", async () => {
      await exec(dialect, db.url, `ALTER TABLE ${q("accounts")} DROP COLUMN ${q("passwordHash")}`);
      const index =
        dialect === "mysql"
          ? "ALTER TABLE `sessions` DROP INDEX `sessions_userId_idx`"
          : `DROP INDEX ${q("sessions_userId_idx")}`;
      if (dialect === "mysql") {
        // InnoDB needs an index on a foreign key's column: give it another one first.
        await exec(
          dialect,
          db.url,
          "ALTER TABLE `sessions` ADD INDEX `app_own_idx` (`userId`, `expires`)",
        );
      }
      await exec(dialect, db.url, index);
      await exec(
        dialect,
        db.url,
        `ALTER TABLE ${q("users")} ADD COLUMN ${q("nickname")} ${dialect === "mysql" ? "text" : "TEXT"}`,
      );
      const dry = await gatehouse(["migrate", "--all", "--dry-run", "--url", db.url]);
      expect(dry.stdout).toMatch(/-- add column accounts.passwordHash\nALTER TABLE/);
      expect(dry.stdout).toMatch(/-- create index sessions_userId_idx\n/);
      const run = await gatehouse(["migrate", "--all", "--url", db.url]);
      expect(run.status).toBe(0);
      expect(run.stderr).toContain("Kept users.nickname: not a Gatehouse column (never dropped).");
      const conn = await connect(dialect, db.url);
      try {
        const found = await introspect(conn);
        expect(found.get("accounts")?.columns.has("passwordHash")).toBe(true);
        expect(found.get("sessions")?.indexes.has("sessions_userId_idx")).toBe(true);
        expect(found.get("users")?.columns.has("nickname")).toBe(true);
      } finally {
        await conn.close();
      }
    });

    it("refuses a retired column's drop without --allow-destructive, and drops it with it", async () => {
      await exec(
        dialect,
        db.url,
        `ALTER TABLE ${q("users")} ADD COLUMN ${q("legacy")} ${dialect === "mysql" ? "text" : "TEXT"}`,
      );
      const retired = [{ table: "users", column: "legacy" }];
      const conn = await connect(dialect, db.url);
      try {
        const dry = await migrateDatabase(conn, { retired, dryRun: true });
        expect(dry.steps.filter((s) => s.destructive).map((s) => s.does)).toEqual([
          "drop retired column users.legacy",
        ]);
        await expect(migrateDatabase(conn, { retired })).rejects.toThrow(
          new CliError("refusing to drop retired column users.legacy without --allow-destructive"),
        );
        expect((await introspect(conn)).get("users")?.columns.has("legacy")).toBe(true);
        await migrateDatabase(conn, { retired, allowDestructive: true });
        expect((await introspect(conn)).get("users")?.columns.has("legacy")).toBe(false);
        // Not retired: kept whatever the flag says.
        const kept = await migrateDatabase(conn, { allowDestructive: true });
        expect(kept.steps).toEqual([]);
        expect((await introspect(conn)).get("users")?.columns.has("nickname")).toBe(true);
      } finally {
        await conn.close();
      }
    });
  });
}

migrateSuite("sqlite", async () => {
  const tmp = tempDir();
  return { url: `file:${join(tmp.dir, "app.db")}`, drop: async () => tmp.remove() };
});

if (postgresReachable) migrateSuite("postgresql", freshPostgresSchema);
else describe.skip("gatehouse migrate on postgresql (server unreachable)", () => {});

if (mysqlReachable) migrateSuite("mysql", freshMysqlDatabase);
else describe.skip("gatehouse migrate on mysql (server unreachable)", () => {});

describe("gatehouse migrate with the app's configuration", () => {
  const tmp = tempDir();
  const app = appFolder({ "auth.ts": DATABASE_APP, "memory.js": MEMORY_MODULE });
  afterAll(() => {
    tmp.remove();
    app.remove();
  });

  it("creates only the configured features' tables, with DATABASE_URL from .env", async () => {
    const url = `file:${join(tmp.dir, "app.db")}`;
    const withEnv = appFolder({
      "auth.ts": DATABASE_APP,
      "memory.js": MEMORY_MODULE,
      ".env": `DATABASE_URL=${url}\n`,
    });
    try {
      const run = await gatehouse(["migrate"], { cwd: withEnv.dir });
      expect(run.stderr).toMatch(/Database: file:.*app\.db \(sqlite\)/);
      expect(run.status).toBe(0);
      expect(await tablesOf("sqlite", url)).toEqual([
        "account_locks",
        "accounts",
        "sessions",
        "users",
        "verification_tokens",
      ]);
    } finally {
      withEnv.remove();
    }
  });

  it("fails without a database, and for a URL whose dialect it cannot tell", async () => {
    const none = await gatehouse(["migrate"], { cwd: app.dir });
    expect(none.status).toBe(1);
    expect(none.stderr).toMatch(/no database: pass --url or set DATABASE_URL/);
    const odd = await gatehouse(["migrate", "--url", "mongodb://localhost/app"], { cwd: app.dir });
    expect(odd.status).toBe(1);
    expect(odd.stderr).toMatch(/pass --dialect/);
    const turso = await gatehouse(
      ["migrate", "-d", "sqlite", "--url", "libsql://db.example.turso.io"],
      {
        cwd: app.dir,
      },
    );
    expect(turso.status).toBe(1);
    expect(turso.stderr).toMatch(/only SQLite files \(file:.\/app.db\) can be migrated here/);
  });

  it.runIf(postgresReachable)(
    "names an unreachable server without printing its password",
    async () => {
      const run = await gatehouse(
        ["migrate", "--url", "postgres://app:hunter2-secret@127.0.0.1:1/app"],
        { cwd: app.dir },
      );
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(/could not connect to postgres:\/\/app:\*\*\*@127.0.0.1:1\/app/);
      expect(run.stderr).not.toContain("hunter2");
    },
  );
});

describe.runIf(postgresReachable)("gatehouse migrate --schema on PostgreSQL", () => {
  const schema = freshName();
  afterAll(async () => {
    const conn = await connect("postgresql", PG_URL);
    await conn.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await conn.close();
  });

  it("creates the schema and its tables, then has nothing to do", async () => {
    const run = await gatehouse(["migrate", "--all", "--url", PG_URL, "--schema", schema]);
    expect(run.status).toBe(0);
    const conn = await connect("postgresql", PG_URL);
    try {
      expect([...(await introspect(conn, schema)).keys()].sort()).toEqual(ALL);
    } finally {
      await conn.close();
    }
    const again = await gatehouse(["migrate", "--all", "--url", PG_URL, "--schema", schema]);
    expect(again.stderr).toMatch(/The database is up to date/);
    const bad = await gatehouse(["migrate", "--all", "--url", PG_URL, "--schema", "x; DROP"]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toBe(
      "Features: all (--all).\ngatehouse: --schema must be 1 to 63 letters, digits or underscores, not starting with a digit\n",
    );
  });
});

describe("the migration plan", () => {
  it("reports a required column it cannot add instead of adding it", () => {
    const found = new Map([
      [
        "users",
        {
          columns: new Map([["id", { nullable: false, type: "TEXT" }]]),
          indexes: new Set<string>(),
        },
      ],
    ]);
    const plan = planMigration("sqlite", found, { features: { adapter: true } });
    expect(plan.missingColumns).toContainEqual({ table: "users", column: "email" });
    expect(plan.steps.map((s) => s.does)).toContain("add column users.email");
    expect(plan.steps.map((s) => s.does)).toContain("create index users_email_key");
    const noSessionsToken = new Map([
      ["users", found.get("users") as never],
      [
        "sessions",
        {
          columns: new Map([["id", { nullable: false, type: "TEXT" }]]),
          indexes: new Set<string>(),
        },
      ],
    ]);
    const p = planMigration("sqlite", noSessionsToken, { features: { databaseSessions: true } });
    expect(p.problems.join("\n")).toMatch(/sessions.sessionToken is missing and required/);
    expect(p.steps.map((s) => s.does)).not.toContain("add column sessions.sessionToken");
    expect(p.steps.map((s) => s.does)).toContain("add column sessions.createdAt");
  });

  it("adds MySQL's generated email key to a users table that lacks it", () => {
    const found = new Map([
      [
        "users",
        {
          columns: new Map(
            TABLES[0]?.columns.map((c) => [c.name, { nullable: c.nullable, type: "x" }]),
          ),
          indexes: new Set<string>(),
        },
      ],
    ]);
    const plan = planMigration("mysql", found, { features: { adapter: false, rateLimit: true } });
    expect(plan.steps.map((s) => s.sql)).toEqual([
      expect.stringMatching(/^CREATE TABLE IF NOT EXISTS `rate_limits`/),
    ]);
    const withUsers = planMigration("mysql", found, { features: { adapter: true } });
    expect(withUsers.steps.map((s) => s.sql)).toContain(
      "ALTER TABLE `users` ADD COLUMN `email_key` varchar(255) AS (NULLIF(`email`, '')) STORED",
    );
    expect(withUsers.steps.map((s) => s.sql)).toContain(
      "ALTER TABLE `users` ADD UNIQUE KEY `users_email_key` (`email_key`)",
    );
  });
});
