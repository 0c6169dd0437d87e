/**
 * `npm run bench:orm -w bench` (issue 25): the database session check, `GET /auth/session` with a
 * session cookie, through the ORMs people use, on one PostgreSQL server (DATABASE_URL):
 *
 * - Drizzle: Gatehouse with `@gatehousejs/drizzle-adapter` against @auth/core with
 *   `@auth/drizzle-adapter` (its default tables), each in a schema of its own (target ≥ 2×).
 * - Prisma 7: Gatehouse with `@gatehousejs/prisma-adapter` against @auth/core with
 *   `@auth/prisma-adapter` (Auth.js's models), both through `@prisma/adapter-pg` (target ≥ 2×).
 * - Drizzle on SQLite (better-sqlite3, a temporary file) against Drizzle on PostgreSQL, both
 *   Gatehouse: what the SQL round trip to a server costs.
 *
 * Each pair is checked once before it is timed (200, the seeded user, no write inside updateAge,
 * and one query per check for Gatehouse, counted at the driver). Knobs: BENCH_BUDGET_MS (default
 * 1500), BENCH_WARMUP_MS (default 4000 per pair).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DrizzleAdapter as AuthjsDrizzleAdapter } from "@auth/drizzle-adapter";
import { PrismaAdapter as AuthjsPrismaAdapter } from "@auth/prisma-adapter";
import { sqlStatements } from "@gatehousejs/cli/schema";
import { DrizzleAdapter } from "@gatehousejs/drizzle-adapter";
import { PrismaAdapter } from "@gatehousejs/prisma-adapter";
import { PrismaPg } from "@prisma/adapter-pg";
import Database from "better-sqlite3";
import { drizzle as drizzleSqlite } from "drizzle-orm/better-sqlite3";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import pg from "pg";
import { recordingLogger } from "./check.mjs";
import { checkDatabaseSession, countCalls, databaseContender, seed } from "./database.mjs";
import { compare, warmUp } from "./harness.mjs";
import { prismaClient } from "./orm/prisma-client.mjs";

const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const budgetMs = Number(process.env.BENCH_BUDGET_MS ?? 1500);
const warmupMs = Number(process.env.BENCH_WARMUP_MS ?? 4000);
const slices = 30;
// The session check never reaches a provider: any base URL configures the bench's provider.
const BASE = "http://127.0.0.1:9";
const tag = `${process.pid}_${Date.now().toString(36)}`;
const cleanups = [];

/** "SELECT sessions JOIN users": the verb and tables of a counted statement. */
function sqlLabel([query]) {
  const text = typeof query === "string" ? query : (query?.text ?? query?.sql ?? "");
  const verb = text.trim().split(/\s+/)[0]?.toUpperCase() ?? "?";
  const tables = [...text.matchAll(/\b(?:from|into|update|join)\s+(?:"?\w+"?\.)?"?(\w+)"?/gi)];
  return [verb, tables.map((m) => m[1]).join(" JOIN ")].filter(Boolean).join(" ");
}

/** Counts what reaches `target[method]` during one untimed session check. */
const countingProbe = (target, method) => (once) => () =>
  countCalls(target, method, sqlLabel, once);

/** A pg Pool whose connections see only `schema`; the schema is dropped at the end. */
async function poolOn(schema) {
  const pool = new pg.Pool({
    connectionString: DATABASE_URL,
    max: 4,
    options: `-c search_path=${schema}`,
  });
  pool.on("error", () => {});
  cleanups.push(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });
  await pool.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  return pool;
}

/** Gatehouse's tables in `schema`, as `gatehouse migrate` makes them. */
async function gatehouseTables(pool, schema) {
  for (const statement of sqlStatements("postgresql", { schema })) await pool.query(statement);
}

/** The tables @auth/drizzle-adapter's default PostgreSQL schema uses. */
const AUTHJS_DRIZZLE_PG = `
CREATE TABLE "user" (
  "id" text PRIMARY KEY, "name" text, "email" text UNIQUE, "emailVerified" timestamp, "image" text
);
CREATE TABLE "account" (
  "userId" text NOT NULL REFERENCES "user" ("id") ON DELETE CASCADE,
  "type" text NOT NULL, "provider" text NOT NULL, "providerAccountId" text NOT NULL,
  "refresh_token" text, "access_token" text, "expires_at" integer, "token_type" text,
  "scope" text, "id_token" text, "session_state" text,
  PRIMARY KEY ("provider", "providerAccountId")
);
CREATE TABLE "session" (
  "sessionToken" text PRIMARY KEY,
  "userId" text NOT NULL REFERENCES "user" ("id") ON DELETE CASCADE,
  "expires" timestamp NOT NULL
);
CREATE TABLE "verificationToken" (
  "identifier" text NOT NULL, "token" text NOT NULL, "expires" timestamp NOT NULL,
  PRIMARY KEY ("identifier", "token")
);`;

/** Auth.js's user, account, session and token models for @auth/prisma-adapter, as Prisma models. */
const AUTHJS_PRISMA_MODELS = `
model User {
  id            String    @id @default(cuid())
  name          String?
  email         String?   @unique
  emailVerified DateTime?
  image         String?
  accounts      Account[]
  sessions      Session[]
  @@map("authjs_users")
}

model Account {
  userId            String
  type              String
  provider          String
  providerAccountId String
  refresh_token     String?
  access_token      String?
  expires_at        Int?
  token_type        String?
  scope             String?
  id_token          String?
  session_state     String?
  user              User    @relation(fields: [userId], references: [id], onDelete: Cascade)
  @@id([provider, providerAccountId])
  @@map("authjs_accounts")
}

model Session {
  sessionToken String   @id
  userId       String
  expires      DateTime
  user         User     @relation(fields: [userId], references: [id], onDelete: Cascade)
  @@map("authjs_sessions")
}

model VerificationToken {
  identifier String
  token      String
  expires    DateTime
  @@id([identifier, token])
  @@map("authjs_verification_tokens")
}
`;

/** The same tables in SQL, as Prisma would create them on PostgreSQL. */
const AUTHJS_PRISMA_PG = `
CREATE TABLE "authjs_users" (
  "id" text PRIMARY KEY, "name" text, "email" text UNIQUE, "emailVerified" timestamp(3), "image" text
);
CREATE TABLE "authjs_accounts" (
  "userId" text NOT NULL REFERENCES "authjs_users" ("id") ON DELETE CASCADE,
  "type" text NOT NULL, "provider" text NOT NULL, "providerAccountId" text NOT NULL,
  "refresh_token" text, "access_token" text, "expires_at" integer, "token_type" text,
  "scope" text, "id_token" text, "session_state" text,
  PRIMARY KEY ("provider", "providerAccountId")
);
CREATE TABLE "authjs_sessions" (
  "sessionToken" text PRIMARY KEY,
  "userId" text NOT NULL REFERENCES "authjs_users" ("id") ON DELETE CASCADE,
  "expires" timestamp(3) NOT NULL
);
CREATE TABLE "authjs_verification_tokens" (
  "identifier" text NOT NULL, "token" text NOT NULL, "expires" timestamp(3) NOT NULL,
  PRIMARY KEY ("identifier", "token")
);`;

async function readFragment(dialect) {
  const { readFile } = await import("node:fs/promises");
  const url = new URL(`../packages/prisma-adapter/prisma/${dialect}.prisma`, import.meta.url);
  return readFile(url, "utf8");
}

/** Both libraries on Drizzle and PostgreSQL, plus Gatehouse's Drizzle on SQLite. */
async function drizzlePairs(logger) {
  const sessionToken = crypto.randomUUID();
  const contender = (name, adapter, probe) =>
    databaseContender({ name, adapter, sessionToken, base: BASE, logger, probe });

  const ghSchema = `bench_orm_drizzle_${tag}`;
  const ghPool = await poolOn(ghSchema);
  await gatehouseTables(ghPool, ghSchema);
  const ghAdapter = DrizzleAdapter(drizzlePg(ghPool));
  await seed(ghAdapter, sessionToken);

  const ajSchema = `bench_orm_authjs_drizzle_${tag}`;
  const ajPool = await poolOn(ajSchema);
  await ajPool.query(AUTHJS_DRIZZLE_PG);
  const ajAdapter = AuthjsDrizzleAdapter(drizzlePg(ajPool));
  await seed(ajAdapter, sessionToken);

  const dir = mkdtempSync(join(tmpdir(), "gatehouse-bench-sqlite-"));
  const sqlite = new Database(join(dir, "auth.db"));
  sqlite.pragma("journal_mode = WAL");
  cleanups.push(async () => {
    sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  });
  for (const statement of sqlStatements("sqlite")) sqlite.exec(statement);
  const sqliteAdapter = DrizzleAdapter(drizzleSqlite(sqlite));
  await seed(sqliteAdapter, sessionToken);

  return {
    gatehouse: contender("Gatehouse", ghAdapter, countingProbe(ghPool, "query")),
    authjs: contender("@auth/core", ajAdapter, countingProbe(ajPool, "query")),
    sqlite: contender("Gatehouse", sqliteAdapter, countingProbe(sqlite, "prepare")),
  };
}

/** Both libraries on Prisma 7 with @prisma/adapter-pg. */
async function prismaPair(logger) {
  const sessionToken = crypto.randomUUID();
  const contender = (name, adapter, probe) =>
    databaseContender({ name, adapter, sessionToken, base: BASE, logger, probe });

  const ghSchema = `bench_orm_prisma_${tag}`;
  const ghPool = await poolOn(ghSchema);
  await gatehouseTables(ghPool, ghSchema);
  const GatehousePrisma = await prismaClient("gatehouse-pg", await readFragment("postgresql"));
  const ghPrisma = new GatehousePrisma({ adapter: new PrismaPg(ghPool, { schema: ghSchema }) });
  cleanups.push(() => ghPrisma.$disconnect());
  const ghAdapter = PrismaAdapter(ghPrisma, { schema: ghSchema });
  await seed(ghAdapter, sessionToken);

  const ajSchema = `bench_orm_authjs_prisma_${tag}`;
  const ajPool = await poolOn(ajSchema);
  await ajPool.query(AUTHJS_PRISMA_PG);
  const AuthjsPrisma = await prismaClient("authjs-pg", AUTHJS_PRISMA_MODELS);
  const ajPrisma = new AuthjsPrisma({ adapter: new PrismaPg(ajPool, { schema: ajSchema }) });
  cleanups.push(() => ajPrisma.$disconnect());
  const ajAdapter = AuthjsPrismaAdapter(ajPrisma);
  await seed(ajAdapter, sessionToken, { withUserId: false });

  return {
    gatehouse: contender("Gatehouse", ghAdapter, countingProbe(ghPool, "query")),
    authjs: contender("@auth/core", ajAdapter, countingProbe(ajPool, "query")),
  };
}

const fmt = (n) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));

async function timePair(label, libs, baselineName, log, target) {
  const timed = Object.fromEntries(Object.entries(libs).map(([k, v]) => [k, v.session]));
  await warmUp(Object.values(timed), { totalMs: warmupMs });
  log.assertClean(`the warm-up of ${label}`);
  const result = await compare(timed, { budgetMs, slices, warmupMs: 200, baseline: baselineName });
  log.assertClean(label);
  const [name] = Object.keys(libs).filter((k) => k !== baselineName);
  const ratio = result.ratios?.[name];
  const verdict = target === null ? "" : ratio >= target ? "  PASS" : "  MISS";
  const goal = target === null ? "" : ` (target ≥ ${target}×)`;
  console.log(
    `${label}: ${name} ${fmt(result[name].opsPerSec)} ops/s, ${baselineName} ${fmt(
      result[baselineName].opsPerSec,
    )} ops/s, ratio ${ratio.toFixed(2)}×${goal}${verdict}`,
  );
}

async function main() {
  const log = recordingLogger();
  try {
    const drizzle = await drizzlePairs(log.logger);
    const prisma = await prismaPair(log.logger);
    const notes = [
      `Drizzle pg, Gatehouse: ${await checkDatabaseSession(drizzle.gatehouse, "query")}`,
      `Drizzle pg, @auth/core: ${await checkDatabaseSession(drizzle.authjs, "query")}`,
      `Drizzle SQLite, Gatehouse: ${await checkDatabaseSession(drizzle.sqlite, "statement")}`,
      `Prisma pg, Gatehouse: ${await checkDatabaseSession(prisma.gatehouse, "query")}`,
      `Prisma pg, @auth/core: ${await checkDatabaseSession(prisma.authjs, "query")}`,
    ];
    log.assertClean("the checks");
    for (const note of notes) console.log(`checked ${note}`);
    await timePair(
      "GET /auth/session, database session, Drizzle on PostgreSQL",
      { Gatehouse: drizzle.gatehouse, "@auth/core": drizzle.authjs },
      "@auth/core",
      log,
      2,
    );
    await timePair(
      "GET /auth/session, database session, Prisma 7 on PostgreSQL",
      { Gatehouse: prisma.gatehouse, "@auth/core": prisma.authjs },
      "@auth/core",
      log,
      2,
    );
    await timePair(
      "GET /auth/session, Gatehouse on Drizzle: SQLite (better-sqlite3) vs PostgreSQL",
      { SQLite: drizzle.sqlite, PostgreSQL: drizzle.gatehouse },
      "PostgreSQL",
      log,
      null,
    );
  } finally {
    for (const cleanup of cleanups.reverse()) {
      await cleanup().catch((error) => console.warn(`cleanup failed: ${error?.message ?? error}`));
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
