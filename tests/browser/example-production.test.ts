/**
 * The built SolidStart example deployed for real (no demo mode): a missing secret stops it at
 * start-up, nothing runs beside it, and the demo-only pages are gone. Plain HTTP, no browser; it
 * shares the browser suite's build (and its hash stamp), so it runs with it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterEach, describe, expect, test } from "vitest";
import { appDir, buildLog, ensureBuilt } from "../../examples/solid-start/scripts/build.mjs";
import { startDemo } from "../../examples/solid-start/scripts/demo.mjs";
import { chromiumPath } from "./chromium.js";
import { DEMO_ACCOUNT, freePort, freshDataDir, removeDataDir } from "./example-app.js";

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

const running: ChildProcess[] = [];
const dataDirs: string[] = [];

function dataDir(): string {
  const dir = freshDataDir("example-prod");
  dataDirs.push(dir);
  return join(dir, "pglite");
}

/** `node .output/server/index.mjs` with only the variables a deployment would set. */
function serve(env: Record<string, string>): Started {
  const child = spawn(process.execPath, [join(appDir, ".output", "server", "index.mjs")], {
    cwd: appDir,
    env: { PATH: process.env.PATH ?? "", NODE_ENV: "production", HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.push(child);
  let output = "";
  child.stdout.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { child, output: () => output, exited };
}

async function waitForServer(origin: string, started: Started): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (started.child.exitCode !== null) throw new Error(`exited: ${started.output()}`);
    if (
      await fetch(`${origin}/api/auth/providers`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not serving: ${started.output()}`);
}

afterEach(async () => {
  await Promise.all(
    running.splice(0).map(async (child) => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }),
  );
  for (const dir of dataDirs.splice(0)) removeDataDir(dir);
});

// Runs with the browser suite only, so that an unrelated test run never builds the example.
describe.skipIf(!chromiumPath)("the SolidStart example deployed for real", () => {
  test("the build prints no warning about the example's code or Gatehouse's", {
    timeout: 240_000,
  }, async () => {
    await ensureBuilt();
    const printed = readFileSync(buildLog, "utf8");
    expect(printed).toMatch(/built|✓|output/i);
    const ours = printed
      .split("\n")
      .filter((line) => /warn|\(!\)/i.test(line))
      .filter((line) => /examples\/solid-start\/src|packages\/|@gatehousejs\//.test(line));
    expect(ours).toEqual([]);
  });

  test("without AUTH_SECRET the server stops at start-up and says why", {
    timeout: 240_000,
  }, async () => {
    await ensureBuilt();
    const started = serve({
      PORT: String(await freePort()),
      PGLITE_DIR: dataDir(),
    });
    expect(await started.exited).toBe(1);
    expect(started.output()).toContain("AUTH_SECRET is not set");
  });

  test("with a secret it serves, /dev/mailbox is a 404, no demo hint or account, TikTok when configured", {
    timeout: 240_000,
  }, async () => {
    await ensureBuilt();
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const started = serve({
      PORT: String(port),
      AUTH_SECRET: randomBytes(32).toString("base64url"),
      AUTH_TRUST_HOST: "true",
      AUTH_TIKTOK_ID: "example-client-key",
      AUTH_TIKTOK_SECRET: "example-client-secret",
      PGLITE_DIR: dataDir(),
    });
    await waitForServer(origin, started);

    expect((await fetch(`${origin}/dev/mailbox`)).status).toBe(404);
    const providers = (await (await fetch(`${origin}/api/auth/providers`)).json()) as object;
    // No local OpenID provider; TikTok because its credentials are set.
    expect(Object.keys(providers).sort()).toEqual([
      "credentials",
      "nodemailer",
      "passkey",
      "password",
      "tiktok",
    ]);
    const home = await (await fetch(`${origin}/`)).text();
    expect(home).toContain("You are not signed in.");
    expect(home).not.toContain('data-testid="demo-hint"');
    expect(home).not.toContain("gatehouse-demo");

    // No demo account either: its well-known password must not open a deployed app.
    const csrf = await fetch(`${origin}/api/auth/csrf`);
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const cookie = csrf.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const signIn = await fetch(`${origin}/api/auth/callback/credentials`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        csrfToken,
        email: DEMO_ACCOUNT.email,
        password: DEMO_ACCOUNT.password,
      }),
    });
    expect(signIn.status).toBe(302);
    expect(signIn.headers.get("location")).toContain("error=CredentialsSignin");
  });
});

/** A throw-away database on the machine's PostgreSQL server, or why there is none. */
async function createDatabase(): Promise<{ url: string; drop(): Promise<void> } | string> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  try {
    await admin.connect();
  } catch (error) {
    return `PostgreSQL is not reachable at ${ADMIN_URL} (${(error as Error).message})`;
  }
  const name = `gatehouse_example_${randomBytes(4).toString("hex")}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

const ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

describe.skipIf(!chromiumPath)("the SolidStart example on a PostgreSQL server", () => {
  test("with DATABASE_URL the tables and the demo account live in that server, not in PGlite", {
    timeout: 240_000,
  }, async () => {
    const database = await createDatabase();
    if (typeof database === "string") {
      if (process.env.CI === "true") throw new Error(database);
      console.warn(`[example tests] DATABASE_URL case skipped: ${database}`);
      return;
    }
    const dir = freshDataDir("example-pg");
    dataDirs.push(dir);
    let demo: Awaited<ReturnType<typeof startDemo>> | undefined;
    try {
      await ensureBuilt();
      demo = await startDemo({
        port: await freePort(),
        smtpPort: 0,
        oidcPort: 0,
        dataDir: dir,
        output: "pipe",
        env: {
          AUTH_SECRET: randomBytes(32).toString("base64url"),
          DATABASE_URL: database.url,
          EMAIL_SERVER: undefined,
          AUTH_OIDC_ISSUER: undefined,
          PGLITE_DIR: undefined,
        },
      });
      const origin = demo.url.replace("localhost", "127.0.0.1");
      const csrf = await fetch(`${origin}/api/auth/csrf`);
      const { csrfToken } = (await csrf.json()) as { csrfToken: string };
      const cookie = csrf.headers
        .getSetCookie()
        .map((c) => c.split(";")[0])
        .join("; ");
      const signIn = await fetch(`${origin}/api/auth/callback/credentials`, {
        method: "POST",
        redirect: "manual",
        headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ csrfToken, ...DEMO_ACCOUNT }),
      });
      expect(signIn.status).toBe(302);
      expect(signIn.headers.get("location")).not.toContain("error=");

      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        const { rows } = await client.query(
          `SELECT u.email, p.hash FROM users u JOIN app_passwords p ON p."userId" = u.id`,
        );
        expect(rows).toHaveLength(1);
        expect(rows[0].email).toBe(DEMO_ACCOUNT.email);
        // scrypt$N=…,r=…,p=…$<salt>$<hash> (@gatehousejs/core/password): never the password itself.
        expect(rows[0].hash).toMatch(/^scrypt\$N=\d+,r=\d+,p=\d+\$[\w-]{22}\$[\w-]{43}$/);
      } finally {
        await client.end();
      }
      // No PGlite folder was made.
      expect(existsSync(join(dir, "pglite"))).toBe(false);
    } finally {
      await demo?.close();
      await database.drop();
    }
  });
});
