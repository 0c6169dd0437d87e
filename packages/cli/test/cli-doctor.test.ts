import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_APP, JWT_APP, MEMORY_MODULE } from "./support/apps.js";
import { appFolder, buildCli, gatehouse } from "./support/cli.js";
import { tempDir } from "./support/servers.js";

beforeAll(buildCli, 180_000);

const SECRET = "q9Vb2Lx7Tn4Rk1Wz8Pj5Hs3Dm6Fc0Ga-Ye_Ui2Oo4Ee";
const GOOD_ENV = [
  `AUTH_SECRET=${SECRET}`,
  "AUTH_URL=https://app.example.com",
  "AUTH_GITHUB_ID=gh-client",
  "AUTH_GITHUB_SECRET=gh-client-secret-value",
  "AUTH_TRUSTED_PROXIES=1",
  "",
].join("\n");

describe("gatehouse doctor", () => {
  const good = appFolder({ "auth.ts": DATABASE_APP, "memory.js": MEMORY_MODULE, ".env": GOOD_ENV });
  const bare = appFolder({ "auth.ts": DATABASE_APP, "memory.js": MEMORY_MODULE });
  const tmp = tempDir();
  afterAll(() => {
    good.remove();
    bare.remove();
    tmp.remove();
  });

  it("passes a complete configuration, lists the callback URL, and never prints the secrets", async () => {
    const run = await gatehouse(["doctor"], { cwd: good.dir });
    expect(run.stdout).toContain("Environment files: .env");
    expect(run.stdout).toContain(
      "· info [provider github] register the callback URL https://app.example.com/auth/callback/github",
    );
    expect(run.stdout).not.toContain("✖ error");
    expect(run.status).toBe(0);
    expect(run.stdout + run.stderr).not.toContain(SECRET);
    expect(run.stdout + run.stderr).not.toContain("gh-client-secret-value");
  });

  it("exits 1 and says what to fix when the environment lacks what the configuration needs", async () => {
    const run = await gatehouse(["doctor"], { cwd: bare.dir });
    expect(run.status).toBe(1);
    expect(run.stdout).toContain("✖ error [secret] no secret: set AUTH_SECRET");
    expect(run.stdout).toContain(
      "✖ error [url] neither url (AUTH_URL) nor trustHost (AUTH_TRUST_HOST) is set",
    );
    expect(run.stdout).toContain("✖ error [provider github] no client id: set AUTH_GITHUB_ID");
    expect(run.stdout).toContain("! warning [rate limits]");
    expect(run.stdout).toMatch(/\d+ error\(s\), 1 warning\(s\): fix the errors above\./);
  });

  it("exits 0 with only warnings", async () => {
    const run = await gatehouse(["doctor"], {
      cwd: bare.dir,
      env: {
        AUTH_SECRET: SECRET,
        AUTH_URL: "https://app.example.com",
        AUTH_GITHUB_ID: "a",
        AUTH_GITHUB_SECRET: "b",
      },
    });
    expect(run.stdout).toMatch(/No errors, 1 warning\(s\)\./);
    expect(run.status).toBe(0);
  });

  it("reports a placeholder secret and a WebAuthn provider without the experimental flag", async () => {
    const app = appFolder({
      "gatehouse.config.ts": JWT_APP.replace("experimental: { enableWebAuthn: true },", ""),
      ".env": "AUTH_SECRET=change-me-please-to-something-long-and-random\nAUTH_TRUST_HOST=true\n",
    });
    try {
      const run = await gatehouse(["doctor"], { cwd: app.dir });
      expect(run.status).toBe(1);
      expect(run.stdout).toContain("✖ error [secret] AUTH_SECRET looks like a placeholder");
      expect(run.stdout).toContain("✖ error [provider passkey] WebAuthn is experimental");
      expect(run.stdout).not.toContain("change-me-please");
    } finally {
      app.remove();
    }
  });

  it("reports schema drift against DATABASE_URL, and none once migrated", async () => {
    const file = join(tmp.dir, "old.db");
    const sqlite = new Database(file);
    sqlite.exec(readFileSync(join(import.meta.dirname, "fixtures/sqlite-0.1.0.sql"), "utf8"));
    sqlite.exec(`DROP TABLE account_locks`);
    sqlite.close();
    const env = { DATABASE_URL: `file:${file}` };
    const drift = await gatehouse(["doctor"], { cwd: good.dir, env });
    expect(drift.status).toBe(1);
    expect(drift.stdout).toContain("✖ error [schema] missing table account_locks");
    expect(drift.stdout).toContain("✖ error [schema] missing column accounts.error");
    expect(drift.stdout).toContain("✖ error [schema] missing column sessions.createdAt");
    expect(drift.stdout).toContain("✖ error [schema] missing column verification_tokens.tries");
    // Not used by this app's configuration (no password provider): not reported.
    expect(drift.stdout).not.toContain("passwordHash");
    expect(drift.stdout).toContain("`npx gatehouse migrate` adds what is missing");

    const migrate = await gatehouse(["migrate"], { cwd: good.dir, env });
    expect(migrate.status).toBe(0);
    const healed = await gatehouse(["doctor"], { cwd: good.dir, env });
    expect(healed.stdout).not.toContain("[schema] missing");
    expect(healed.status).toBe(0);
  });

  it("warns, without failing, when a store's tables are all absent (a store kept elsewhere)", async () => {
    const app = appFolder({
      "gatehouse.config.ts": JWT_APP,
      ".env": `AUTH_SECRET=${SECRET}\nAUTH_URL=https://app.example.com\nAUTH_TRUSTED_PROXIES=1\n`,
    });
    const file = join(tmp.dir, "no-stores.db");
    try {
      const migrated = await gatehouse(
        ["migrate", "--without", "revocation,rateLimit", "--url", `file:${file}`],
        {
          cwd: app.dir,
        },
      );
      expect(migrated.status).toBe(0);
      const run = await gatehouse(["doctor", "--url", `file:${file}`], { cwd: app.dir });
      expect(run.stdout).toContain(
        "! warning [schema] no revoked_sessions, revocation_epochs, jwt_sessions table: fine if session.revocation.store keeps its data elsewhere",
      );
      expect(run.stdout).toContain(
        "! warning [schema] no rate_limits table: fine if rateLimit.store",
      );
      expect(run.stdout).not.toContain("✖ error");
      expect(run.status).toBe(0);
      // Half a store's tables is drift, not a store kept elsewhere.
      const sqlite = new Database(file);
      sqlite.exec(
        `CREATE TABLE "revoked_sessions" ("userId" TEXT NOT NULL, "sessionId" TEXT NOT NULL, "expires" INTEGER NOT NULL)`,
      );
      sqlite.close();
      const half = await gatehouse(["doctor", "--url", `file:${file}`], { cwd: app.dir });
      expect(half.stdout).toContain("✖ error [schema] missing table revocation_epochs");
      expect(half.status).toBe(1);
    } finally {
      app.remove();
    }
  });

  it("reports a SQLite file that does not exist, without creating it", async () => {
    const file = join(tmp.dir, "typo.db");
    const run = await gatehouse(["doctor", "--url", `file:${file}`], { cwd: good.dir });
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/✖ error \[schema\] could not connect to file:.*typo\.db/);
    expect(existsSync(file)).toBe(false);
  });

  it("reports a database it cannot reach as an error", async () => {
    const run = await gatehouse(["doctor", "--url", "postgres://u:pw-not-shown@127.0.0.1:1/db"], {
      cwd: good.dir,
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(
      /✖ error \[schema\] could not connect to postgres:\/\/u:\*\*\*@127.0.0.1:1\/db/,
    );
    expect(run.stdout).not.toContain("pw-not-shown");
  });
});
