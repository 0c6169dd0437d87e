/**
 * Issue 25's "done when", as a new user does it: in an app folder with its own `auth.config.ts`,
 * `gatehouse secret --write`, `gatehouse generate` for the ORM and the database, `gatehouse
 * migrate`, then a sign-in through `Auth()` with the app's own configuration and the secret from
 * `.env`: an email link (database sessions), so the user, account, token and session rows all go
 * through the tables the command line made. Drizzle on SQLite and PostgreSQL; Prisma 7 on SQLite,
 * with the client generated from the fragment `generate` wrote.
 */
import { execFile } from "node:child_process";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { Auth } from "@gatehousejs/core";
import type { AuthConfig } from "@gatehousejs/core/types";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { appFolder, buildCli, gatehouse } from "./support/cli.js";
import { freshPostgresSchema, postgresReachable } from "./support/servers.js";

const ORIGIN = "http://localhost:3000";
const ADDRESS = "newcomer@example.com";

beforeAll(() => buildCli());

/** The app's configuration: an email provider whose "mail" is written to `mail.txt`. */
function configModule(adapterImports: string, adapter: string): string {
  return `${adapterImports}
import { appendFileSync } from "node:fs";
import Email from "@gatehousejs/core/providers/email";

export default {
  adapter: ${adapter},
  session: { strategy: "database" as const },
  trustHost: true,
  providers: [
    Email({
      from: "auth@example.com",
      confirm: false,
      sendVerificationRequest: ({ url }: { url: string }) => {
        appendFileSync(new URL("./mail.txt", import.meta.url), url + "\\n");
      },
    }),
  ],
};
`;
}

/** The cookies of a response, merged into `jar`. */
function keep(jar: Map<string, string>, response: Response): void {
  for (const line of response.headers.getSetCookie()) {
    const [pair = ""] = line.split(";");
    const eq = pair.indexOf("=");
    const value = pair.slice(eq + 1);
    if (value === "") jar.delete(pair.slice(0, eq));
    else jar.set(pair.slice(0, eq), value);
  }
}
const cookieHeader = (jar: Map<string, string>) =>
  [...jar].map(([name, value]) => `${name}=${value}`).join("; ");

/** Signs in with the emailed link through the app's configuration; returns the session body. */
async function signInByEmail(dir: string, config: AuthConfig): Promise<unknown> {
  const jar = new Map<string, string>();
  const send = async (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (jar.size) headers.set("cookie", cookieHeader(jar));
    const response = await Auth(new Request(`${ORIGIN}${path}`, { ...init, headers }), config);
    keep(jar, response);
    return response;
  };
  const { csrfToken } = (await (await send("/auth/csrf")).json()) as { csrfToken: string };
  const asked = await send("/auth/signin/email", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrfToken, email: ADDRESS, callbackUrl: "/" }),
  });
  expect(asked.status).toBe(302);
  const link = new URL(readFileSync(join(dir, "mail.txt"), "utf8").trim().split("\n").at(-1)!);
  const landed = await send(`${link.pathname}${link.search}`);
  expect(landed.status).toBe(302);
  expect(landed.headers.get("location")).toBe(`${ORIGIN}/`);
  return (await send("/auth/session")).json();
}

/** The AUTH_SECRET line `gatehouse secret --write` put in `.env`. */
function secretOf(dir: string): string {
  const line = readFileSync(join(dir, ".env"), "utf8")
    .split("\n")
    .find((l) => l.startsWith("AUTH_SECRET="));
  return line!.slice("AUTH_SECRET=".length).replace(/^"|"$/g, "");
}

/** Loads the app's configuration module as the app would, with the secret from `.env`. */
async function appConfig(dir: string): Promise<AuthConfig> {
  const module = (await import(pathToFileURL(join(dir, "auth.config.ts")).href)) as {
    default: AuthConfig;
  };
  return { ...module.default, secret: secretOf(dir), basePath: "/auth" };
}

async function expectCommand(args: string[], cwd: string, env: Record<string, string> = {}) {
  const run = await gatehouse(args, { cwd, env });
  expect(run.status, `gatehouse ${args.join(" ")}\n${run.stdout}\n${run.stderr}`).toBe(0);
  return run;
}

describe("a new user with Drizzle on SQLite", () => {
  let app: ReturnType<typeof appFolder>;
  afterAll(() => app?.remove());

  test("secret, generate, migrate (twice), then signs in", async () => {
    app = appFolder({
      "auth.config.ts": configModule(
        `import Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { DrizzleAdapter } from "@gatehousejs/drizzle-adapter";`,
        `DrizzleAdapter(drizzle(new Database(new URL("./app.db", import.meta.url).pathname)))`,
      ),
    });
    const { dir } = app;
    await expectCommand(["secret", "--write"], dir);
    expect(secretOf(dir).length).toBeGreaterThanOrEqual(43);

    await expectCommand(
      ["generate", "--adapter", "drizzle", "--dialect", "sqlite", "--out", "db/auth-schema.ts"],
      dir,
    );
    const schema = readFileSync(join(dir, "db/auth-schema.ts"), "utf8");
    expect(schema).toMatch(/sqliteTable\(\s*"sessions"/);
    expect(schema).toMatch(/sqliteTable\(\s*"verification_tokens"/);
    // Only what the configuration uses: no passkeys, no password column.
    expect(schema).not.toContain('"authenticators"');
    expect(schema).not.toContain("passwordHash");

    const url = `file:${join(dir, "app.db")}`;
    const planned = await expectCommand(["migrate", "--url", url, "--dry-run"], dir);
    expect(planned.stdout).toMatch(/CREATE TABLE/i);
    await expectCommand(["migrate", "--url", url], dir);
    const again = await expectCommand(["migrate", "--url", url, "--dry-run"], dir);
    expect(again.stdout).not.toMatch(/CREATE TABLE|ALTER TABLE/i);

    const session = (await signInByEmail(dir, await appConfig(dir))) as {
      user?: { email?: string };
    };
    expect(session?.user?.email).toBe(ADDRESS);
  });
});

describe.skipIf(!postgresReachable)("a new user with Drizzle on PostgreSQL", () => {
  let app: ReturnType<typeof appFolder>;
  let database: Awaited<ReturnType<typeof freshPostgresSchema>>;
  afterAll(async () => {
    app?.remove();
    await database?.drop();
  });

  test("secret, generate, migrate into a schema of its own, then signs in", async () => {
    database = await freshPostgresSchema();
    app = appFolder({
      "auth.config.ts": configModule(
        `import pg from "pg";
import { drizzle } from "drizzle-orm/node-postgres";
import { DrizzleAdapter } from "@gatehousejs/drizzle-adapter";`,
        `DrizzleAdapter(drizzle(new pg.Pool({ connectionString: ${JSON.stringify(database.url)} })))`,
      ),
    });
    const { dir } = app;
    await expectCommand(["secret", "--write"], dir);
    await expectCommand(
      ["generate", "--adapter", "drizzle", "--dialect", "postgresql", "--out", "db/schema.ts"],
      dir,
    );
    expect(readFileSync(join(dir, "db/schema.ts"), "utf8")).toMatch(/pgTable\(\s*"sessions"/);
    await expectCommand(["migrate", "--url", database.url, "--schema", database.schema], dir);
    const again = await expectCommand(
      ["migrate", "--url", database.url, "--schema", database.schema, "--dry-run"],
      dir,
    );
    expect(again.stdout).not.toMatch(/CREATE TABLE|ALTER TABLE/i);

    const config = await appConfig(dir);
    const session = (await signInByEmail(dir, config)) as { user?: { email?: string } };
    expect(session?.user?.email).toBe(ADDRESS);
  });
});

describe("a new user with Prisma 7 on SQLite", () => {
  let app: ReturnType<typeof appFolder>;
  afterAll(() => app?.remove());

  test("generate the fragment, prisma generate, migrate, then signs in", async () => {
    app = appFolder({
      "auth.config.ts": configModule(
        `import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaAdapter } from "@gatehousejs/prisma-adapter";
import { PrismaClient } from "./generated/client/client.ts";`,
        `PrismaAdapter(new PrismaClient({ adapter: new PrismaBetterSqlite3({ url: new URL("./app.db", import.meta.url).pathname }, { timestampFormat: "unixepoch-ms" }) }))`,
      ),
    });
    const { dir } = app;
    await expectCommand(["secret", "--write"], dir);
    // The configuration imports a client that does not exist yet: the features are named, and
    // the configuration is not read.
    await expectCommand(
      [
        "generate",
        "--adapter",
        "prisma",
        "--dialect",
        "sqlite",
        "--features",
        "adapter,databaseSessions,email",
        "--out",
        "prisma/gatehouse.prisma",
      ],
      dir,
    );
    const fragment = readFileSync(join(dir, "prisma/gatehouse.prisma"), "utf8");
    writeFileSync(
      join(dir, "prisma/schema.prisma"),
      `generator client {
  provider = "prisma-client"
  output   = "../generated/client"
}

datasource db {
  provider = "sqlite"
}

${fragment}`,
    );
    // Prisma's CLI asks for its schema engine (a download) even to generate a client; a stub
    // that fails if called stands in for it, so generation here needs no engine.
    const stub = join(dir, "schema-engine-stub.sh");
    writeFileSync(stub, "#!/bin/sh\necho 'no schema engine here' >&2\nexit 1\n");
    chmodSync(stub, 0o755);
    const prisma = createRequire(import.meta.url).resolve("prisma/build/index.js");
    await promisify(execFile)(process.execPath, [prisma, "generate"], {
      cwd: dir,
      env: {
        ...process.env,
        PRISMA_SCHEMA_ENGINE_BINARY: stub,
        PRISMA_HIDE_UPDATE_MESSAGE: "1",
        CHECKPOINT_DISABLE: "1",
      },
      timeout: 120_000,
    });
    expect(existsSync(join(dir, "generated/client/client.ts"))).toBe(true);

    await expectCommand(["migrate", "--url", `file:${join(dir, "app.db")}`], dir);

    const session = (await signInByEmail(dir, await appConfig(dir))) as {
      user?: { email?: string };
    };
    expect(session?.user?.email).toBe(ADDRESS);
  }, 180_000);
});
