/**
 * The Drizzle schema file and the Prisma fragment the CLI writes: they compile (tsc, prisma
 * validate) and they fit the tables of the SQL DDL (the Drizzle file reads and writes rows of
 * tables made by sqlStatements on each real database).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import Database from "better-sqlite3";
import { eq, getTableName } from "drizzle-orm";
import { drizzle as drizzleSqlite } from "drizzle-orm/better-sqlite3";
import { getTableConfig as mysqlConfig } from "drizzle-orm/mysql-core";
import { drizzle as drizzleMysql } from "drizzle-orm/mysql2";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { getTableConfig as pgConfig } from "drizzle-orm/pg-core";
import { getTableConfig as sqliteConfig } from "drizzle-orm/sqlite-core";
import mysql from "mysql2/promise";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Dialect,
  drizzleSchema,
  prismaSchema,
  sqlStatements,
  TABLES,
} from "../src/schema/index.js";
import {
  freshMysqlDatabase,
  freshPostgresSchema,
  mysqlReachable,
  postgresReachable,
  tempDir,
} from "./support/servers.js";

const ROOT = resolve(import.meta.dirname, "../../..");
const tmp = tempDir();
symlinkSync(join(ROOT, "node_modules"), join(tmp.dir, "node_modules"), "dir");
const DIALECTS: Dialect[] = ["postgresql", "mysql", "sqlite"];
for (const d of DIALECTS) writeFileSync(join(tmp.dir, `${d}.ts`), drizzleSchema(d));
afterAll(() => tmp.remove());

// biome-ignore lint/suspicious/noExplicitAny: the generated modules are loaded at run time.
type Tables = Record<string, any>;
const load = async (d: Dialect): Promise<Tables> => import(join(tmp.dir, `${d}.ts`));

describe("the Drizzle schema file", () => {
  it("type-checks under strict TypeScript for every dialect", () => {
    writeFileSync(
      join(tmp.dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          lib: ["ES2023", "DOM"],
          skipLibCheck: true,
          types: [],
        },
        files: DIALECTS.map((d) => `${d}.ts`),
      }),
    );
    const tsc = spawnSync(process.execPath, [
      join(ROOT, "node_modules/typescript/bin/tsc"),
      "-p",
      tmp.dir,
    ]);
    expect(String(tsc.stdout) + String(tsc.stderr)).toBe("");
    expect(tsc.status).toBe(0);
  }, 60_000);

  it("names every table and column as the model, with the DDL's types", async () => {
    // biome-ignore lint/suspicious/noExplicitAny: one reader per dialect, each for its own tables.
    const configOf: Record<Dialect, (table: any) => any> = {
      postgresql: pgConfig,
      mysql: mysqlConfig,
      sqlite: sqliteConfig,
    };
    for (const d of DIALECTS) {
      const mod = await load(d);
      for (const table of TABLES) {
        const drizzleTable = mod[table.exportName];
        expect(getTableName(drizzleTable)).toBe(table.name);
        const config = configOf[d](drizzleTable);
        const columns = config.columns.map((c: { name: string }) => c.name);
        const expected = table.columns.map((c) => c.name);
        expect(columns).toEqual(
          d === "mysql" && table.name === "users"
            ? [...expected.slice(0, 3), "email_key", ...expected.slice(3)]
            : expected,
        );
        for (const column of table.columns) {
          const c = config.columns.find((x: { name: string }) => x.name === column.name);
          expect(c.notNull, `${d} ${table.name}.${column.name}`).toBe(!column.nullable);
        }
        const indexNames = [
          ...config.indexes.map((i: { config: { name: string } }) => i.config.name),
          ...config.uniqueConstraints.map((u: { name: string }) => u.name),
        ].sort();
        expect(indexNames, `${d} ${table.name}`).toEqual(table.indexes.map((i) => i.name).sort());
      }
    }
    const pgSessions = pgConfig((await load("postgresql")).sessions);
    expect(pgSessions.columns.find((c) => c.name === "expires")?.getSQLType()).toBe(
      "timestamp with time zone",
    );
    expect(pgSessions.foreignKeys[0]?.getName()).toBe("sessions_userId_fkey");
    const my = mysqlConfig((await load("mysql")).accounts);
    expect(my.columns.find((c) => c.name === "provider")?.getSQLType()).toBe("varchar(255)");
    expect(my.columns.find((c) => c.name === "access_token")?.getSQLType()).toBe("text");
  });

  it("writes only the tables of the features asked for", () => {
    const file = drizzleSchema("sqlite", { features: { webauthn: true } });
    expect(file).toContain("export const authenticators = sqliteTable(");
    expect(file).not.toContain("sessions");
    expect(file).not.toContain("passwordHash");
  });
});

/** Writes and reads rows of every kind of column through the generated tables. */
async function roundTrip(db: Tables, t: Tables, returning: boolean) {
  const now = new Date(Math.floor(Date.now() / 1000) * 1000 + 123);
  await db.insert(t.users).values({ id: "u1", email: "" });
  await db.insert(t.users).values({ id: "u2", email: "", emailVerified: now });
  await db.insert(t.users).values({ id: "u3", email: "a@example.com" });
  await expect(db.insert(t.users).values({ id: "u4", email: "a@example.com" })).rejects.toThrow();
  await db.insert(t.accounts).values({
    userId: "u1",
    type: "oauth",
    provider: "github",
    providerAccountId: "1",
    expires_at: 2_000_000_000,
    session_state: { a: 1 },
    passwordHash: "hash",
  });
  await db.insert(t.sessions).values({ id: "s1", sessionToken: "tok", userId: "u1", expires: now });
  await db.insert(t.authenticators).values({
    credentialID: "c1",
    userId: "u1",
    providerAccountId: "c1",
    credentialPublicKey: "pk",
    credentialDeviceType: "multiDevice",
    credentialBackedUp: true,
  });
  await db
    .insert(t.verificationTokens)
    .values({ identifier: "a@example.com", token: "h", expires: now });
  await db.insert(t.rateLimits).values({ key: "k", count: 3, resetAt: now });
  await db
    .insert(t.securityEvents)
    .values({ id: "e1", userId: "u1", type: "sign-in", at: now, newClient: false });

  const [user] = await db.select().from(t.users).where(eq(t.users.id, "u2"));
  expect(user.emailVerified).toEqual(now);
  const [account] = await db.select().from(t.accounts).where(eq(t.accounts.userId, "u1"));
  expect(account.id).toMatch(/^[0-9a-f-]{36}$/);
  expect(account.expires_at).toBe(2_000_000_000);
  expect(account.session_state).toEqual({ a: 1 });
  expect(account.passwordHash).toBe("hash");
  const [session] = await db.select().from(t.sessions).where(eq(t.sessions.sessionToken, "tok"));
  expect(session.expires).toEqual(now);
  expect(session.createdAt).toBeNull();
  const [passkey] = await db.select().from(t.authenticators);
  expect(passkey.credentialBackedUp).toBe(true);
  expect(passkey.counter).toBe(0);
  const [token] = await db.select().from(t.verificationTokens);
  expect(token.tries).toBe(0);
  const [limit] = await db.select().from(t.rateLimits);
  expect(limit).toEqual({ key: "k", count: 3, resetAt: now });
  const [event] = await db.select().from(t.securityEvents);
  expect(event.newClient).toBe(false);
  if (returning) {
    const gone = await db.delete(t.users).where(eq(t.users.id, "u3")).returning();
    expect(gone).toHaveLength(1);
  }
}

describe.runIf(postgresReachable)("the Drizzle file on PostgreSQL tables from the DDL", () => {
  let schema: Awaited<ReturnType<typeof freshPostgresSchema>>;
  let pool: pg.Pool;
  beforeAll(async () => {
    schema = await freshPostgresSchema();
    pool = new pg.Pool({ connectionString: schema.url, max: 2 });
    for (const sql of sqlStatements("postgresql")) await pool.query(sql);
  });
  afterAll(async () => {
    await pool?.end();
    await schema?.drop();
  });
  it("writes and reads every kind of column", async () => {
    await roundTrip(drizzlePg(pool), await load("postgresql"), true);
  });
});

describe.runIf(mysqlReachable)("the Drizzle file on MySQL tables from the DDL", () => {
  let database: Awaited<ReturnType<typeof freshMysqlDatabase>>;
  let conn: mysql.Connection;
  beforeAll(async () => {
    database = await freshMysqlDatabase();
    conn = await mysql.createConnection({ uri: database.url, timezone: "Z" });
    for (const sql of sqlStatements("mysql")) await conn.query(sql);
  });
  afterAll(async () => {
    await conn?.end();
    await database?.drop();
  });
  it("writes and reads every kind of column", async () => {
    await roundTrip(drizzleMysql(conn), await load("mysql"), false);
  });
});

describe("the Drizzle file on SQLite tables from the DDL", () => {
  const sqlite = new Database(join(tmp.dir, "app.db"));
  afterAll(() => sqlite.close());
  it("writes and reads every kind of column", async () => {
    for (const sql of sqlStatements("sqlite")) sqlite.exec(sql);
    await roundTrip(drizzleSqlite(sqlite), await load("sqlite"), true);
  });
});

describe("the Prisma fragment", () => {
  const schemaOf = (d: Dialect, body: string) =>
    `generator client {\n  provider = "prisma-client"\n  output   = "./generated"\n}\n\ndatasource db {\n  provider = "${d}"\n}\n\n${body}`;
  // Validation runs in Prisma's WebAssembly; the CLI only wants its schema engine present, which
  // cannot be downloaded here and is not used by `validate`: a stub stands in for it.
  const stub = join(tmp.dir, "schema-engine-stub.sh");
  writeFileSync(stub, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  const validate = (file: string) =>
    execFileSync(
      process.execPath,
      [join(ROOT, "node_modules/prisma/build/index.js"), "validate", "--schema", file],
      {
        env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: stub, PRISMA_HIDE_UPDATE_MESSAGE: "1" },
        stdio: "pipe",
        cwd: tmp.dir,
      },
    ).toString();

  it("is a valid Prisma schema for every dialect, and an invalid one is caught", () => {
    for (const d of DIALECTS) {
      const file = join(tmp.dir, `${d}.prisma`);
      writeFileSync(file, schemaOf(d, prismaSchema(d)));
      expect(validate(file)).toMatch(/is valid/);
    }
    const broken = join(tmp.dir, "broken.prisma");
    writeFileSync(broken, schemaOf("mysql", prismaSchema("mysql").replace("@db.Text", "@db.Txt")));
    expect(() => validate(broken)).toThrow();
  }, 120_000);

  it("maps models to the canonical names and says what Prisma cannot declare", () => {
    const text = prismaSchema("postgresql");
    for (const table of TABLES) {
      expect(text).toContain(`model ${table.model} {`);
      expect(text).toContain(`@@map("${table.name}")`);
    }
    expect(text).toContain(
      '@@unique([provider, providerAccountId], map: "accounts_provider_account_key")',
    );
    expect(text).toMatch(/users_email_key: UNIQUE \(email\) WHERE email <> ''/);
    expect(prismaSchema("sqlite")).toContain('timestampFormat: "unixepoch-ms"');
    const small = prismaSchema("mysql", { features: { password: true } });
    expect(small).toContain("passwordHash");
    expect(small).not.toContain("model Session");
    expect(small).not.toContain("sessions ");
  });
});
