/**
 * The promise of docs/upgrading.md, tested: a database made by the previous release (its recorded
 * DDL, in fixtures/) with rows in it is brought up to date by `gatehouse migrate`; every adapter
 * and store suite then passes on it, and the rows written before are still there.
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
  PostgresAdapter,
  PostgresRateLimitStore,
  PostgresRevocationStore,
  PostgresSecurityEventStore,
} from "@gatehousejs/pg-adapter";
import Database from "better-sqlite3";
import mysql from "mysql2/promise";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TABLES } from "../src/schema/index.js";
import { buildCli, gatehouse } from "./support/cli.js";
import {
  freshMysqlDatabase,
  freshName,
  freshPostgresSchema,
  mysqlReachable,
  postgresReachable,
  postgresSchemaUrl,
  tempDir,
} from "./support/servers.js";

beforeAll(buildCli, 180_000);

const fixture = (name: string) => readFileSync(join(import.meta.dirname, "fixtures", name), "utf8");
/** A script's statements: split at the `;` ending a line, comments dropped. */
const statementsOf = (script: string) =>
  script
    .split(/;\n/)
    .map((s) => s.replace(/^--.*$/gm, "").trim())
    .filter(Boolean);

const EXPIRES = new Date("2099-01-01T00:00:00.000Z");
const ALL_COLUMNS = TABLES.flatMap((t) => t.columns.map((c) => `${t.name}.${c.name}`)).sort();

describe.runIf(postgresReachable)("upgrading a pg-adapter 0.1.0 database", () => {
  // Named now: the suites below take their adapter and stores when they are declared.
  const schema = freshName();
  const url = postgresSchemaUrl(schema);
  let db: Awaited<ReturnType<typeof freshPostgresSchema>> | undefined;
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on("error", () => {});
  const one = async (sql: string, params: unknown[] = []) =>
    ((await pool.query(sql, params)).rows[0] as Record<string, unknown> | undefined) ?? null;

  beforeAll(async () => {
    db = await freshPostgresSchema(schema);
    await pool.query(fixture("pg-adapter-0.1.0.sql"));
    await pool.query(
      `INSERT INTO users (id, name, email) VALUES ('before-1', 'Ada', 'ada-before@example.com');
       INSERT INTO accounts ("userId", type, provider, "providerAccountId", access_token, expires_at)
         VALUES ('before-1', 'oauth', 'github', 'gh-before', 'at-before', 2000000000);
       INSERT INTO sessions ("sessionToken", "userId", expires) VALUES ('st-before', 'before-1', '2099-01-01Z');
       INSERT INTO verification_tokens (identifier, token, expires) VALUES ('ada-before@example.com', 'vt-before', '2099-01-01Z');
       INSERT INTO revoked_sessions ("userId", "sessionId", expires) VALUES ('before-1', 'sid-before', '2099-01-01Z');
       INSERT INTO rate_limits (key, count, "resetAt") VALUES ('rl-before', 2, '2099-01-01Z');`,
    );
    const run = await gatehouse(["migrate", "--all", "--url", url]);
    expect(run.stderr).toMatch(/The database is up to date|Applied/);
    expect(run.status).toBe(0);
  }, 60_000);
  afterAll(async () => {
    await pool.end();
    await db?.drop();
  });

  it("has every column of the model after the migration", async () => {
    const { rows } = await pool.query(
      "SELECT table_name || '.' || column_name AS c FROM information_schema.columns WHERE table_schema = current_schema()",
    );
    expect(rows.map((r) => r.c).sort()).toEqual(ALL_COLUMNS);
  });

  describe("adapter and stores on the migrated database", () => {
    runAdapterTests({
      name: "pg-adapter after gatehouse migrate",
      adapter: PostgresAdapter(pool, { schema }),
      db: {
        user: (id) => one(`SELECT * FROM users WHERE id = $1`, [id]) as never,
        account: async ({ provider, providerAccountId }) => {
          const row = await one(
            `SELECT * FROM accounts WHERE provider = $1 AND "providerAccountId" = $2`,
            [provider, providerAccountId],
          );
          return (
            row &&
            ({
              ...row,
              expires_at: row.expires_at === null ? null : Number(row.expires_at),
            } as never)
          );
        },
        session: (token) =>
          one(`SELECT * FROM sessions WHERE "sessionToken" = $1`, [token]) as never,
        verificationToken: ({ identifier, token }) =>
          one(`SELECT * FROM verification_tokens WHERE identifier = $1 AND token = $2`, [
            identifier,
            token,
          ]) as never,
        authenticator: async (id) => {
          const row = await one(`SELECT * FROM authenticators WHERE "credentialID" = $1`, [id]);
          return row && ({ ...row, counter: Number(row.counter) } as never);
        },
      },
    });
    runRevocationStoreTests({
      name: "pg revocation store after gatehouse migrate",
      store: PostgresRevocationStore(pool, { schema }),
    });
    runSecurityEventStoreTests({
      name: "pg security log after gatehouse migrate",
      store: PostgresSecurityEventStore(pool, { schema }),
    });
    runRateLimitStoreTests({
      name: "pg rate limits after gatehouse migrate",
      store: PostgresRateLimitStore(pool, { schema }),
    });
  });

  it("keeps the rows written before the upgrade", async () => {
    expect(await one("SELECT name, email FROM users WHERE id = 'before-1'")).toEqual({
      name: "Ada",
      email: "ada-before@example.com",
    });
    expect(
      await one(
        `SELECT access_token, "passwordHash" FROM accounts WHERE "providerAccountId" = 'gh-before'`,
      ),
    ).toEqual({
      access_token: "at-before",
      passwordHash: null,
    });
    expect(
      await one(`SELECT "userId", expires FROM sessions WHERE "sessionToken" = 'st-before'`),
    ).toEqual({
      userId: "before-1",
      expires: EXPIRES,
    });
    expect(await one(`SELECT tries FROM verification_tokens WHERE token = 'vt-before'`)).toEqual({
      tries: 0,
    });
    expect(
      await one(`SELECT count(*)::int AS n FROM revoked_sessions WHERE "sessionId" = 'sid-before'`),
    ).toEqual({ n: 1 });
    expect(await one(`SELECT count::int AS n FROM rate_limits WHERE key = 'rl-before'`)).toEqual({
      n: 2,
    });
  });
});

/** The rows an older release wrote, the same on MySQL and SQLite (times as each stores them). */
function olderRows(time: string | number): string[] {
  return [
    "INSERT INTO users (id, name, email) VALUES ('before-1', 'Ada', 'ada-before@example.com')",
    `INSERT INTO accounts (id, userId, type, provider, providerAccountId, access_token) VALUES ('acc-1', 'before-1', 'oauth', 'github', 'gh-before', 'at-before')`,
    `INSERT INTO sessions (id, sessionToken, userId, expires) VALUES ('s-1', 'st-before', 'before-1', ${time})`,
    `INSERT INTO verification_tokens (identifier, token, expires) VALUES ('ada-before@example.com', 'vt-before', ${time})`,
    `INSERT INTO jwt_sessions (userId, sessionId, expires) VALUES ('before-1', 'sid-before', ${time})`,
  ];
}

/** What must hold after the upgrade: new columns there, old rows kept, added columns empty. */
const NEW_COLUMNS = [
  "accounts.passwordHash",
  "accounts.error",
  "sessions.createdAt",
  "sessions.factors",
  "verification_tokens.tries",
  "jwt_sessions.providerSid",
];

describe.runIf(mysqlReachable)("upgrading an older MySQL database", () => {
  let db: Awaited<ReturnType<typeof freshMysqlDatabase>>;
  let conn: mysql.Connection;
  beforeAll(async () => {
    db = await freshMysqlDatabase();
    conn = await mysql.createConnection({ uri: db.url, timezone: "Z" });
    for (const sql of statementsOf(fixture("mysql-0.1.0.sql"))) await conn.query(sql);
    for (const sql of olderRows("'2099-01-01 00:00:00.000'")) await conn.query(sql);
  });
  afterAll(async () => {
    await conn?.end();
    await db?.drop();
  });

  it("adds the newer columns with gatehouse migrate and keeps every row", async () => {
    const columns = async () => {
      const [rows] = await conn.query<mysql.RowDataPacket[]>(
        "SELECT CONCAT(table_name, '.', column_name) AS c FROM information_schema.columns WHERE table_schema = DATABASE()",
      );
      return rows.map((r) => String(r.c));
    };
    for (const c of NEW_COLUMNS) expect(await columns()).not.toContain(c);
    const run = await gatehouse(["migrate", "--all", "--url", db.url]);
    expect(run.status).toBe(0);
    expect(run.stderr).toMatch(/add column accounts.passwordHash/);
    expect((await columns()).sort()).toEqual([...ALL_COLUMNS, "users.email_key"].sort());
    const [[session]] = (await conn.query(
      "SELECT * FROM sessions WHERE sessionToken = 'st-before'",
    )) as [mysql.RowDataPacket[], unknown];
    expect(session).toMatchObject({
      userId: "before-1",
      expires: EXPIRES,
      createdAt: null,
      factors: null,
    });
    const [[token]] = (await conn.query(
      "SELECT tries FROM verification_tokens WHERE token = 'vt-before'",
    )) as [mysql.RowDataPacket[], unknown];
    expect(token?.tries).toBe(0);
    const [[account]] = (await conn.query(
      "SELECT access_token, passwordHash FROM accounts WHERE id = 'acc-1'",
    )) as [mysql.RowDataPacket[], unknown];
    expect(account).toEqual({ access_token: "at-before", passwordHash: null });
    const again = await gatehouse(["migrate", "--all", "--url", db.url]);
    expect(again.stderr).toMatch(/The database is up to date/);
  });
});

describe("upgrading an older SQLite database", () => {
  const tmp = tempDir();
  const file = join(tmp.dir, "app.db");
  afterAll(() => tmp.remove());

  it("adds the newer columns with gatehouse migrate and keeps every row", async () => {
    const sqlite = new Database(file);
    sqlite.exec(fixture("sqlite-0.1.0.sql"));
    for (const sql of olderRows(EXPIRES.getTime())) {
      sqlite.exec(sql.replace(/\b(userId|providerAccountId|sessionToken|sessionId)\b/g, '"$1"'));
    }
    sqlite.close();
    const run = await gatehouse(["migrate", "--all", "--url", `file:${file}`]);
    expect(run.status).toBe(0);
    expect(run.stderr).toMatch(/add column verification_tokens.tries/);
    const after = new Database(file, { readonly: true });
    try {
      const columns = TABLES.flatMap((t) =>
        (after.prepare(`PRAGMA table_info("${t.name}")`).all() as { name: string }[]).map(
          (c) => `${t.name}.${c.name}`,
        ),
      );
      expect(columns.sort()).toEqual(ALL_COLUMNS);
      expect(after.prepare(`SELECT "userId", expires, "createdAt" FROM sessions`).get()).toEqual({
        userId: "before-1",
        expires: EXPIRES.getTime(),
        createdAt: null,
      });
      expect(after.prepare("SELECT tries FROM verification_tokens").get()).toEqual({ tries: 0 });
      expect(after.prepare(`SELECT "providerSid" FROM jwt_sessions`).get()).toEqual({
        providerSid: null,
      });
    } finally {
      after.close();
    }
    const again = await gatehouse(["migrate", "--all", "--url", `file:${file}`]);
    expect(again.stderr).toMatch(/The database is up to date/);
  });
});
