import { join } from "node:path";
import {
  migrate,
  PostgresRateLimitStore,
  PostgresRevocationStore,
  PostgresSecurityEventStore,
} from "@gatehousejs/pg-adapter";
import Database from "better-sqlite3";
import mysql from "mysql2/promise";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  resolveFeatures,
  sqlScript,
  sqlStatements,
  TABLES,
  tablesFor,
} from "../src/schema/index.js";
import {
  freshMysqlDatabase,
  freshName,
  mysqlReachable,
  PG_URL,
  postgresReachable,
  tempDir,
} from "./support/servers.js";

const ALL_TABLES = TABLES.map((t) => t.name);

describe("the model", () => {
  it("names every table of pg-adapter and its stores, in dependency order", () => {
    expect(ALL_TABLES).toEqual([
      "users",
      "accounts",
      "account_locks",
      "sessions",
      "verification_tokens",
      "authenticators",
      "revoked_sessions",
      "revocation_epochs",
      "jwt_sessions",
      "security_events",
      "rate_limits",
    ]);
  });

  it("keeps only the tables and columns of the features asked for", () => {
    const jwtOnly = tablesFor(resolveFeatures({}));
    expect(jwtOnly.map((t) => t.name)).toEqual(["users", "accounts"]);
    const accounts = jwtOnly.find((t) => t.name === "accounts");
    expect(accounts?.columns.map((c) => c.name)).not.toContain("passwordHash");
    expect(accounts?.columns.map((c) => c.name)).not.toContain("error");

    const some = tablesFor(resolveFeatures({ password: true, tokenRefresh: true, webauthn: true }));
    expect(some.map((t) => t.name)).toEqual([
      "users",
      "accounts",
      "account_locks",
      "authenticators",
    ]);
    expect(some[1]?.columns.map((c) => c.name)).toEqual(
      expect.arrayContaining(["passwordHash", "error"]),
    );

    const storesOnly = tablesFor(
      resolveFeatures({ adapter: false, rateLimit: true, revocation: true }),
    );
    expect(storesOnly.map((t) => t.name)).toEqual([
      "revoked_sessions",
      "revocation_epochs",
      "jwt_sessions",
      "rate_limits",
    ]);
    // A feature that stores rows beside users brings users back.
    expect(resolveFeatures({ adapter: false, databaseSessions: true }).adapter).toBe(true);
  });

  it("refuses a bad dialect and a schema name that is not an identifier", () => {
    expect(() => sqlStatements("oracle" as "mysql")).toThrow(TypeError);
    expect(() => sqlStatements("postgresql", { schema: 'x"; DROP TABLE users; --' })).toThrow(
      TypeError,
    );
    expect(() => sqlStatements("sqlite", { schema: "main" })).toThrow(TypeError);
  });

  it("writes a script whose statements end with semicolons", () => {
    const script = sqlScript("sqlite");
    expect(script.startsWith("-- Gatehouse tables")).toBe(true);
    expect(script.match(/;\n/g)?.length).toBe(sqlStatements("sqlite").length);
  });
});

describe.runIf(postgresReachable)("PostgreSQL DDL", () => {
  const pool = new pg.Pool({ connectionString: PG_URL, max: 2 });
  const ours = freshName();
  const theirs = freshName();
  afterAll(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS "${ours}" CASCADE`);
    await pool.query(`DROP SCHEMA IF EXISTS "${theirs}" CASCADE`);
    await pool.end();
  });

  async function layout(schema: string) {
    const columns = await pool.query(
      `SELECT table_name, column_name, data_type, is_nullable, column_default, ordinal_position
       FROM information_schema.columns WHERE table_schema = $1 ORDER BY table_name, column_name`,
      [schema],
    );
    const indexes = await pool.query(
      `SELECT tablename, indexname, replace(indexdef, $1, 'S') AS def
       FROM pg_indexes WHERE schemaname = $2 ORDER BY tablename, indexname`,
      [`"${schema}".`, schema],
    );
    const constraints = await pool.query(
      `SELECT c.conrelid::regclass::text LIKE '%.' || '"' || '%' AS q, c.conname, c.contype,
              replace(pg_get_constraintdef(c.oid), $1, 'S') AS def, cls.relname
       FROM pg_constraint c JOIN pg_class cls ON cls.oid = c.conrelid
       JOIN pg_namespace n ON n.oid = cls.relnamespace
       WHERE n.nspname = $2 ORDER BY cls.relname, c.conname`,
      [`"${schema}".`, schema],
    );
    return {
      columns: columns.rows,
      indexes: indexes.rows.map((r) => ({
        ...r,
        def: String(r.def).replaceAll(`${schema}.`, "S."),
      })),
      constraints: constraints.rows.map(({ q: _q, ...r }) => ({
        ...r,
        def: String(r.def).replaceAll(`${schema}.`, "S."),
      })),
    };
  }

  it("is the layout of pg-adapter's migrate() and its stores', and runs twice", async () => {
    await migrate(pool, { schema: theirs });
    await PostgresRevocationStore(pool, { schema: theirs }).migrate();
    await PostgresSecurityEventStore(pool, { schema: theirs }).migrate();
    await PostgresRateLimitStore(pool, { schema: theirs }).migrate();

    for (let run = 0; run < 2; run++) {
      for (const sql of sqlStatements("postgresql", { schema: ours })) await pool.query(sql);
    }
    const mine = await layout(ours);
    const reference = await layout(theirs);
    expect(mine.columns.length).toBeGreaterThan(60);
    expect(new Set(mine.columns.map((c) => c.table_name))).toEqual(new Set(ALL_TABLES));
    expect(mine.columns).toEqual(reference.columns);
    expect(mine.indexes).toEqual(reference.indexes);
    expect(mine.constraints).toEqual(reference.constraints);
  });
});

describe.runIf(mysqlReachable)("MySQL/MariaDB DDL", () => {
  let db: Awaited<ReturnType<typeof freshMysqlDatabase>>;
  let conn: mysql.Connection;
  beforeAll(async () => {
    db = await freshMysqlDatabase();
    conn = await mysql.createConnection({ uri: db.url });
  });
  afterAll(async () => {
    await conn?.end();
    await db?.drop();
  });

  it("creates every table with the conventions' types, twice without error", async () => {
    for (let run = 0; run < 2; run++) {
      for (const sql of sqlStatements("mysql")) await conn.query(sql);
    }
    const [tables] = await conn.query<mysql.RowDataPacket[]>(
      "SELECT table_name AS t, engine AS e, table_collation AS c FROM information_schema.tables WHERE table_schema = DATABASE() ORDER BY t",
    );
    expect(tables.map((r) => r.t).sort()).toEqual([...ALL_TABLES].sort());
    for (const row of tables) {
      expect(row.e).toBe("InnoDB");
      expect(row.c).toBe("utf8mb4_bin");
    }
    const [columns] = await conn.query<mysql.RowDataPacket[]>(
      `SELECT table_name AS t, column_name AS c, column_type AS type, is_nullable AS n
       FROM information_schema.columns WHERE table_schema = DATABASE()`,
    );
    const typeOf = (t: string, c: string) => columns.find((r) => r.t === t && r.c === c)?.type;
    expect(typeOf("users", "id")).toBe("varchar(255)");
    expect(typeOf("users", "name")).toBe("text");
    expect(typeOf("users", "emailVerified")).toBe("datetime(3)");
    expect(typeOf("accounts", "expires_at")).toBe("bigint(20)");
    expect(typeOf("authenticators", "credentialBackedUp")).toBe("tinyint(1)");
    expect(typeOf("sessions", "sessionToken")).toBe("varchar(255)");
    expect(["json", "longtext"]).toContain(typeOf("accounts", "session_state"));
    // Every model column is there, plus only the generated email key.
    const expected = TABLES.flatMap((t) => t.columns.map((c) => `${t.name}.${c.name}`));
    expect(columns.map((r) => `${r.t}.${r.c}`).sort()).toEqual(
      [...expected, "users.email_key"].sort(),
    );
  });

  it("lets any number of users have no email, and one user each real address (exact case)", async () => {
    await conn.query(
      "INSERT INTO users (id, email) VALUES ('a', ''), ('b', ''), ('c', 'x@example.com'), ('d', 'X@example.com')",
    );
    await expect(
      conn.query("INSERT INTO users (id, email) VALUES ('e', 'x@example.com')"),
    ).rejects.toThrow(/Duplicate/);
  });

  it("deletes a user's accounts with the user", async () => {
    await conn.query(
      "INSERT INTO accounts (id, userId, type, provider, providerAccountId) VALUES ('acc', 'a', 'oauth', 'github', '1')",
    );
    await conn.query("DELETE FROM users WHERE id = 'a'");
    const [rows] = await conn.query<mysql.RowDataPacket[]>(
      "SELECT * FROM accounts WHERE id = 'acc'",
    );
    expect(rows).toHaveLength(0);
  });
});

describe("SQLite DDL", () => {
  const tmp = tempDir();
  const sqlite = new Database(join(tmp.dir, "app.db"));
  afterAll(() => {
    sqlite.close();
    tmp.remove();
  });

  it("creates every table twice without error, with the conventions' types", () => {
    for (let run = 0; run < 2; run++) {
      for (const sql of sqlStatements("sqlite")) sqlite.exec(sql);
    }
    const tables = sqlite
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .all() as { name: string }[];
    expect(tables.map((t) => t.name).sort()).toEqual([...ALL_TABLES].sort());
    const info = sqlite.prepare('PRAGMA table_info("sessions")').all() as {
      name: string;
      type: string;
    }[];
    expect(info.find((c) => c.name === "expires")?.type).toBe("INTEGER");
    expect(info.find((c) => c.name === "sessionToken")?.type).toBe("TEXT");
    for (const t of TABLES) {
      const names = (
        sqlite.prepare(`PRAGMA table_info("${t.name}")`).all() as { name: string }[]
      ).map((c) => c.name);
      expect(names).toEqual(t.columns.map((c) => c.name));
    }
  });

  it("lets any number of users have no email, and one user each real address", () => {
    sqlite.exec(
      `INSERT INTO users (id, email) VALUES ('a', ''), ('b', ''), ('c', 'x@example.com')`,
    );
    expect(() =>
      sqlite.exec(`INSERT INTO users (id, email) VALUES ('e', 'x@example.com')`),
    ).toThrow(/UNIQUE/);
    expect(() =>
      sqlite.exec(
        `INSERT INTO accounts (id, "userId", type, provider, "providerAccountId") VALUES ('1', 'a', 'oauth', 'gh', '1'), ('2', 'b', 'oauth', 'gh', '1')`,
      ),
    ).toThrow(/UNIQUE/);
  });

  it("cascades deletes from users when foreign keys are on", () => {
    sqlite.pragma("foreign_keys = ON");
    sqlite.exec(
      `INSERT INTO sessions (id, "sessionToken", "userId", expires) VALUES ('s', 't', 'a', 0)`,
    );
    sqlite.exec(`DELETE FROM users WHERE id = 'a'`);
    expect(sqlite.prepare("SELECT count(*) AS n FROM sessions").get()).toEqual({ n: 0 });
  });
});
