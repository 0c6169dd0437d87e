/**
 * Gatehouse from a clone, the way the README tells a newcomer to use it before the packages are
 * published: `npm run pack` writes every package's tarball into one folder, a fresh app outside
 * the workspace (its own package.json, no workspace links) installs the core tarball from there,
 * compiles the README's minimal server with `tsc` as the README says, starts it and signs in.
 * Every provider subpath of core and of the SolidStart package, and core's client and
 * integration entries, resolve there by package name, for `tsc --module nodenext` and for Node.js.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { PACKAGES, packAll } from "../../scripts/pack.mjs";
import { documentationBlocks, root } from "../docs/markdown.js";
import { freePort } from "../support/free-port.js";

const built = existsSync(join(root, "packages/core/dist/index.js"));
if (!built && process.env.CI) throw new Error("packages/core/dist is missing: run `npm run build`");

let app = "";
let tarballs: string[] = [];
let server: ChildProcess | undefined;
let origin = "";
let output = "";

/** The provider ids of core's sources: the modules of packages/core/src/providers (not `_shared/`). */
function providerIds(): string[] {
  return readdirSync(join(root, "packages/core/src/providers"))
    .filter((name) => /^[a-z0-9-]+\.ts$/.test(name))
    .map((name) => name.slice(0, -".ts".length))
    .sort();
}

/** The version of a package the workspace has installed, so the fresh app gets the same one. */
function installed(name: string): string {
  const manifest = join(root, "node_modules", name, "package.json");
  return (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
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

  // The SolidStart package is unpacked beside core, not installed: its peers (solid-js) and
  // its browser dependency are not needed to resolve the provider modules, which only re-export
  // core's.
  function unpackSolidStart(): void {
    const tarball = tarballs.find((file) => basename(file).startsWith("gatehousejs-solid-start-"));
    const target = join(app, "node_modules/@gatehousejs/solid-start");
    if (existsSync(target)) return;
    mkdirSync(target, { recursive: true });
    execFileSync("tar", ["-xzf", tarball!, "-C", target, "--strip-components=1"]);
  }

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

  test("the tarball ships one built provider module per provider of core's sources", () => {
    const dist = join(app, "node_modules/@gatehousejs/core/dist/providers");
    const shipped = readdirSync(dist)
      .filter((name) => name.endsWith(".js"))
      .map((name) => name.slice(0, -".js".length))
      .sort();
    expect(shipped).toEqual(providerIds());
    expect(providerIds().length).toBeGreaterThanOrEqual(25);
  });

  test("every provider subpath of both packages, and core's client and integration, resolve by name for tsc (nodenext) and Node.js", () => {
    unpackSolidStart();
    const ids = providerIds();
    const name = (id: string) => id.replace(/-(.)/g, (_, c: string) => c.toUpperCase());
    const lines = [
      'import { signIn, withPasskeys } from "@gatehousejs/core/client";',
      'import { createAuthRoute } from "@gatehousejs/core/integration";',
      ...ids.flatMap((id) => [
        `import core_${name(id)} from "@gatehousejs/core/providers/${id}";`,
        `import solid_${name(id)} from "@gatehousejs/solid-start/providers/${id}";`,
      ]),
      "const pairs: [string, unknown, unknown][] = [",
      ...ids.map((id) => `  [${JSON.stringify(id)}, core_${name(id)}, solid_${name(id)}],`),
      "];",
      'const different = pairs.filter(([, a, b]) => typeof a !== "function" || a !== b);',
      "console.log(JSON.stringify({ providers: pairs.length, different: different.map(([id]) => id),",
      "  client: [typeof signIn, typeof withPasskeys], integration: typeof createAuthRoute }));",
      "",
    ];
    writeFileSync(join(app, "subpaths.ts"), lines.join("\n"));
    const tsc = join(app, "node_modules/typescript/bin/tsc");
    const flags = ["--module", "nodenext", "--target", "es2022", "--strict", "--types", "node"];
    execFileSync(process.execPath, [tsc, ...flags, "subpaths.ts"], { cwd: app, stdio: "pipe" });
    const out = execFileSync(process.execPath, ["subpaths.js"], { cwd: app, encoding: "utf8" });
    expect(JSON.parse(out)).toEqual({
      providers: ids.length,
      different: [],
      client: ["function", "function"],
      integration: "function",
    });
  });

  test("core's internal provider helpers (providers/_shared) are not a subpath", () => {
    writeFileSync(
      join(app, "shared.ts"),
      'export * from "@gatehousejs/core/providers/_shared/claims";\n',
    );
    const tsc = join(app, "node_modules/typescript/bin/tsc");
    const compiled = spawnSync(
      process.execPath,
      [tsc, "--module", "nodenext", "--target", "es2022", "--noEmit", "shared.ts"],
      { cwd: app, encoding: "utf8" },
    );
    expect(compiled.status).not.toBe(0);
    expect(compiled.stdout).toMatch(/TS2307|TS2305|Cannot find module/);
    const loaded = spawnSync(
      process.execPath,
      ["--input-type=module", "-e", 'await import("@gatehousejs/core/providers/_shared/claims");'],
      { cwd: app, encoding: "utf8" },
    );
    expect(loaded.stderr).toMatch(/ERR_PACKAGE_PATH_NOT_EXPORTED/);
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
