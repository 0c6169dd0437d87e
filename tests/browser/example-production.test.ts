/**
 * The built SolidStart example deployed for real (no demo mode): a missing secret stops it at
 * start-up, nothing runs beside it, and the demo-only pages are gone. Plain HTTP, no browser; it
 * shares the browser suite's build (and its hash stamp), so it runs with it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { appDir, ensureBuilt } from "../../examples/solid-start/scripts/build.mjs";
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

// Runs with the browser suite only, so that an unrelated test run never builds the example.
describe.skipIf(!chromiumPath)("the SolidStart example deployed for real", () => {
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

  test("with a secret it serves, /dev/mailbox is a 404 and no demo hint is shown", {
    timeout: 240_000,
  }, async () => {
    await ensureBuilt();
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const started = serve({
      PORT: String(port),
      AUTH_SECRET: randomBytes(32).toString("base64url"),
      AUTH_TRUST_HOST: "true",
      PGLITE_DIR: dataDir(),
    });
    await waitForServer(origin, started);

    expect((await fetch(`${origin}/dev/mailbox`)).status).toBe(404);
    const providers = (await (await fetch(`${origin}/api/auth/providers`)).json()) as object;
    // No local OpenID provider, no TikTok without its credentials.
    expect(Object.keys(providers).sort()).toEqual(["credentials", "nodemailer", "passkey"]);
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
