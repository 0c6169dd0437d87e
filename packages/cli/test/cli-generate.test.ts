import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drizzleSchema, prismaSchema, sqlScript } from "../src/schema/index.js";
import { DATABASE_APP, JWT_APP, MEMORY_MODULE, STATELESS_APP } from "./support/apps.js";
import { appFolder, buildCli, gatehouse } from "./support/cli.js";

beforeAll(buildCli, 180_000);

const tablesIn = (sql: string) =>
  [...sql.matchAll(/CREATE TABLE IF NOT EXISTS "(\w+)"/g)].map((m) => m[1]);

describe("gatehouse generate", () => {
  const databaseApp = appFolder({ "auth.ts": DATABASE_APP, "memory.js": MEMORY_MODULE });
  const jwtApp = appFolder({ "src/gatehouse.config.ts": JWT_APP });
  const statelessApp = appFolder({ "auth.config.ts": STATELESS_APP });
  afterAll(() => {
    databaseApp.remove();
    jwtApp.remove();
    statelessApp.remove();
  });

  it("writes the tables of a database-session app's features, read from its auth.ts", async () => {
    const run = await gatehouse(["generate", "--adapter", "sql", "--dialect", "sqlite"], {
      cwd: databaseApp.dir,
    });
    expect(run.stderr).toContain("(export default)");
    expect(run.status).toBe(0);
    expect(tablesIn(run.stdout)).toEqual([
      "users",
      "accounts",
      "account_locks",
      "sessions",
      "verification_tokens",
    ]);
    expect(run.stdout).not.toContain("passwordHash");
    expect(run.stdout).toContain('"error" TEXT');
    expect(run.stderr).toMatch(/databaseSessions \(session.strategy "database"\)/);
    expect(run.stdout).toBe(
      sqlScript("sqlite", {
        features: { adapter: true, databaseSessions: true, email: true, tokenRefresh: true },
      }),
    );
  });

  it("finds src/gatehouse.config.ts, its authConfig export, and a JWT app's stores and providers", async () => {
    const run = await gatehouse(["generate", "--adapter", "sql", "--dialect", "postgresql"], {
      cwd: jwtApp.dir,
    });
    expect(run.status).toBe(0);
    expect(run.stderr).toContain("(export authConfig)");
    expect(tablesIn(run.stdout)).toEqual([
      "users",
      "accounts",
      "verification_tokens",
      "authenticators",
      "revoked_sessions",
      "revocation_epochs",
      "jwt_sessions",
      "rate_limits",
    ]);
    expect(run.stdout).toContain('"passwordHash" text');
    expect(run.stdout).not.toContain('"error" text');
  });

  it("leaves out a feature with --without and adds one with --with", async () => {
    const run = await gatehouse(
      [
        "generate",
        "-a",
        "sql",
        "-d",
        "mysql",
        "--without",
        "revocation,rateLimit",
        "--with",
        "securityLog",
      ],
      { cwd: jwtApp.dir },
    );
    expect(run.status).toBe(0);
    const tables = [...run.stdout.matchAll(/CREATE TABLE IF NOT EXISTS `(\w+)`/g)].map((m) => m[1]);
    expect(tables).toEqual([
      "users",
      "accounts",
      "verification_tokens",
      "authenticators",
      "security_events",
    ]);
    const typo = await gatehouse(["generate", "-a", "sql", "-d", "mysql", "--with", "sessions"], {
      cwd: jwtApp.dir,
    });
    expect(typo.status).toBe(1);
    expect(typo.stderr).toMatch(/unknown feature "sessions"/);
  });

  it("writes a Drizzle schema file with --out, for --config given", async () => {
    const run = await gatehouse(
      [
        "generate",
        "--adapter",
        "drizzle",
        "--dialect",
        "postgresql",
        "--config",
        "auth.ts",
        "--out",
        "src/db/auth-schema.ts",
      ],
      { cwd: databaseApp.dir },
    );
    expect(run.status).toBe(0);
    expect(run.stdout).toBe("");
    const file = readFileSync(join(databaseApp.dir, "src/db/auth-schema.ts"), "utf8");
    expect(file).toBe(
      drizzleSchema("postgresql", {
        features: { adapter: true, databaseSessions: true, email: true, tokenRefresh: true },
      }),
    );
    expect(file).toContain("export const sessions = pgTable(");
    expect(file).not.toContain("authenticators");
  });

  it("prints a Prisma fragment for every table with --all, without a configuration", async () => {
    const empty = appFolder({});
    try {
      const run = await gatehouse(
        ["generate", "--adapter", "prisma", "--dialect", "sqlite", "--all"],
        {
          cwd: empty.dir,
        },
      );
      expect(run.status).toBe(0);
      expect(run.stdout).toBe(prismaSchema("sqlite"));
      const none = await gatehouse(["generate", "--adapter", "prisma", "--dialect", "sqlite"], {
        cwd: empty.dir,
      });
      expect(none.status).toBe(1);
      expect(none.stderr).toMatch(/no Gatehouse configuration found .*pass --config/);
    } finally {
      empty.remove();
    }
  });

  it("writes PostgreSQL SQL into a --schema, and refuses a --schema it cannot use", async () => {
    const run = await gatehouse([
      "generate",
      "-a",
      "sql",
      "-d",
      "postgresql",
      "--all",
      "--schema",
      "auth",
    ]);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('CREATE SCHEMA IF NOT EXISTS "auth";');
    expect(run.stdout).toContain('CREATE TABLE IF NOT EXISTS "auth"."users"');
    const bad = await gatehouse([
      "generate",
      "-a",
      "sql",
      "-d",
      "postgresql",
      "--all",
      "--schema",
      "a-b",
    ]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^gatehouse: --schema must be 1 to 63 letters/m);
    const drizzle = await gatehouse([
      "generate",
      "-a",
      "drizzle",
      "-d",
      "postgresql",
      "--all",
      "--schema",
      "auth",
    ]);
    expect(drizzle.status).toBe(1);
    expect(drizzle.stderr).toMatch(/--schema is for --adapter sql/);
  });

  it("calls a configuration exported as a function, and names a file that exports none", async () => {
    const lazy = appFolder({
      "auth.config.mjs":
        'import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";\nexport default () => ({ adapter: MemoryAdapter(), session: { strategy: "jwt" }, providers: [] });\n',
    });
    const handlers = appFolder({
      "auth.ts": "export default { handlers: { GET() {} } };\nexport const auth = () => null;\n",
    });
    try {
      const run = await gatehouse(["generate", "-a", "sql", "-d", "sqlite"], { cwd: lazy.dir });
      expect(run.status).toBe(0);
      expect(tablesIn(run.stdout)).toEqual(["users", "accounts"]);
      const none = await gatehouse(["generate", "-a", "sql", "-d", "sqlite"], {
        cwd: handlers.dir,
      });
      expect(none.status).toBe(1);
      expect(none.stderr).toMatch(
        /exports no Gatehouse configuration: export it as default, or as "config" or "authConfig"/,
      );
    } finally {
      lazy.remove();
      handlers.remove();
    }
  });

  it("fails for an app that stores nothing, a missing file, and a file that throws", async () => {
    const stateless = await gatehouse(["generate", "-a", "sql", "-d", "sqlite"], {
      cwd: statelessApp.dir,
    });
    expect(stateless.status).toBe(1);
    expect(stateless.stderr).toMatch(/stores nothing in a database/);
    const missing = await gatehouse(["generate", "-a", "sql", "-d", "sqlite", "-c", "nope.ts"], {
      cwd: statelessApp.dir,
    });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/no configuration file at nope.ts/);
    const broken = appFolder({
      "auth.ts": 'throw new Error("boom at load");\nexport default {};\n',
    });
    try {
      const run = await gatehouse(["generate", "-a", "sql", "-d", "sqlite"], { cwd: broken.dir });
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(/could not load .*auth.ts: boom at load/);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    } finally {
      broken.remove();
    }
  });
});
