/**
 * Gatehouse from a clone, the way the README tells a newcomer to use it before the packages are
 * published: `npm run pack` writes every package's tarball into one folder, a fresh app outside
 * the workspace (its own package.json, no workspace links) installs the core tarball from there,
 * compiles the README's minimal server with `tsc` as the README says, starts it and signs in.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { PACKAGES, packAll } from "../../scripts/pack.mjs";
import { documentationBlocks, root } from "../docs/markdown.js";

const built = existsSync(join(root, "packages/core/dist/index.js"));
if (!built && process.env.CI) throw new Error("packages/core/dist is missing: run `npm run build`");

let app = "";
let tarballs: string[] = [];
let server: ChildProcess | undefined;
let origin = "";
let output = "";

/** The version of a package the workspace has installed, so the fresh app gets the same one. */
function installed(name: string): string {
  const manifest = join(root, "node_modules", name, "package.json");
  return (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((ok) => probe.listen(0, "127.0.0.1", ok));
  const { port } = probe.address() as { port: number };
  await new Promise((ok) => probe.close(ok));
  return port;
}

/** Merges the cookies a response sets into `jar` and returns the jar as one Cookie header. */
function keep(jar: Map<string, string>, response: Response): string {
  for (const line of response.headers.getSetCookie()) {
    const [pair = ""] = line.split(";");
    const eq = pair.indexOf("=");
    jar.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  return [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
}

describe.skipIf(!built)("the packed tarballs in a fresh app", () => {
  beforeAll(async () => {
    app = mkdtempSync(join(tmpdir(), "gatehouse-fresh-app-"));
    tarballs = packAll({ out: join(app, "packs"), build: false });
    const core = tarballs.find((file) => basename(file).startsWith("gatehousejs-core-"));
    expect(core).toBeDefined();
    writeFileSync(
      join(app, "package.json"),
      JSON.stringify({
        name: "fresh-app",
        private: true,
        type: "module",
        dependencies: { "@gatehousejs/core": `file:./packs/${basename(core!)}` },
        devDependencies: {
          typescript: installed("typescript"),
          "@types/node": installed("@types/node"),
        },
      }),
    );
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], {
      cwd: app,
      stdio: "pipe",
      env: { ...process.env, npm_config_workspaces: "false" },
    });
  }, 240_000);

  afterAll(async () => {
    server?.kill();
    if (app) rmSync(app, { recursive: true, force: true });
  });

  test("npm run pack writes one tarball per package, each under the @gatehousejs scope", () => {
    expect(tarballs.map((file) => basename(file))).toEqual(
      PACKAGES.map((name: string) => expect.stringMatching(`^gatehousejs-${name}-\\d`)),
    );
    for (const file of tarballs) {
      const manifest = execFileSync("tar", ["-xzOf", file, "package/package.json"], {
        encoding: "utf8",
      });
      const { name } = JSON.parse(manifest) as { name: string };
      expect(name).toMatch(/^@gatehousejs\//);
    }
  });

  test("the app's copy of core is the tarball's, not a link into the workspace", () => {
    const installedCore = join(app, "node_modules/@gatehousejs/core");
    expect(lstatSync(installedCore).isSymbolicLink()).toBe(false);
    expect(existsSync(join(installedCore, "dist/index.js"))).toBe(true);
    expect(existsSync(join(app, "node_modules/jose/package.json"))).toBe(true);
  });

  test("the README's minimal server compiles with tsc as the README says, runs and signs in", async () => {
    const [block] = documentationBlocks().filter(
      (b) => b.file === "README.md" && b.marker?.kind === "run",
    );
    expect(block).toBeDefined();
    writeFileSync(join(app, "server.ts"), block!.code);
    // The command the README prints for Node.js 20.
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const command = "npx tsc --module nodenext --target es2022 server.ts";
    expect(readme).toContain(command);
    execFileSync(
      process.execPath,
      [join(app, "node_modules/typescript/bin/tsc"), ...command.split(" ").slice(2)],
      { cwd: app, stdio: "pipe" },
    );
    expect(existsSync(join(app, "server.js"))).toBe(true);

    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, ["server.js"], {
      cwd: app,
      env: { ...process.env, AUTH_SECRET: "fresh-app-secret-".repeat(3), PORT: String(port) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    server.stdout!.on("data", (chunk) => (output += chunk));
    server.stderr!.on("data", (chunk) => (output += chunk));
    for (let i = 0; i < 100 && !output.includes(`${origin}/auth/signin`); i++) {
      await new Promise((ok) => setTimeout(ok, 100));
    }
    expect(output).toContain(`${origin}/auth/signin`);

    const jar = new Map<string, string>();
    const csrf = await fetch(`${origin}/auth/csrf`);
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const callback = await fetch(`${origin}/auth/callback/credentials`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: keep(jar, csrf), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        csrfToken,
        email: "ada@example.com",
        password: "correct horse battery staple",
        callbackUrl: `${origin}/`,
      }),
    });
    expect(callback.status).toBe(302);
    expect(callback.headers.get("location")).toBe(`${origin}/`);
    const session = await fetch(`${origin}/auth/session`, {
      headers: { cookie: keep(jar, callback) },
    });
    expect(await session.json()).toMatchObject({ user: { email: "ada@example.com" } });
  }, 60_000);
});
