/**
 * The published package, as npm would ship it: pack the tarball, unpack it into a clean folder,
 * and import every export from there, through the exports map and the built `dist/`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

const root = resolve(import.meta.dirname, "../../..");
const pkgDir = resolve(import.meta.dirname, "..");
const built = existsSync(join(pkgDir, "dist/index.js"));
const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as {
  exports: Record<string, string | Record<string, string> | null>;
};

let folder = "";

function run(code: string): string {
  return execFileSync(process.execPath, ["--input-type=module", "-e", code], {
    cwd: folder,
    encoding: "utf8",
  });
}

describe.skipIf(!built)("the packed @gatehousejs/core", () => {
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), "gatehouse-pack-"));
    // --ignore-scripts: the prepack build is the release's job; here dist/ is already built.
    const tarball = execFileSync(
      "npm",
      ["pack", "--silent", "--ignore-scripts", "--pack-destination", folder],
      {
        cwd: pkgDir,
        encoding: "utf8",
      },
    ).trim();
    const target = join(folder, "node_modules/@gatehousejs/core");
    mkdirSync(target, { recursive: true });
    execFileSync("tar", ["-xzf", join(folder, tarball), "-C", target, "--strip-components=1"]);
    // Only jose is installed next to it: credentials sign-in must not need oauth4webapi.
    symlinkSync(join(root, "node_modules/jose"), join(folder, "node_modules/jose"), "dir");
  });
  afterAll(() => {
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  test("every export resolves to built JavaScript with type declarations", () => {
    const installed = join(folder, "node_modules/@gatehousejs/core");
    // `./providers/*` stands for every provider module the package ships.
    const providers = readdirSync(join(installed, "src/providers"))
      .filter((name) => /^[a-z0-9-]+\.ts$/.test(name))
      .map((name) => name.slice(0, -".ts".length));
    expect(providers.length).toBeGreaterThanOrEqual(25);
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      // A string is ./package.json; null keeps a path private (./providers/_shared/*).
      if (typeof target === "string" || target === null) continue;
      const names = subpath.includes("*") ? providers : [""];
      for (const name of names) {
        for (const file of [target.default!, target.types!]) {
          const path = file.replace("*", name);
          expect(existsSync(join(installed, path)), `${subpath} → ${path}`).toBe(true);
        }
      }
    }
  });

  test("the entry points import by name and a credentials sign-in works without oauth4webapi", () => {
    const out = run(`
      import { Auth, isAuthAction } from "@gatehousejs/core";
      import Credentials from "@gatehousejs/core/providers/credentials";
      import { encode, decode } from "@gatehousejs/core/jwt";
      import { CredentialsSignin } from "@gatehousejs/core/errors";
      import { isDate } from "@gatehousejs/core/adapters";
      import Email from "@gatehousejs/core/providers/email";
      const config = { secret: "s".repeat(32), trustHost: true,
        providers: [Credentials({ credentials: { u: {} }, authorize: ({ u }) => (u === "a" ? { id: "1" } : null) })] };
      const csrf = await Auth(new Request("http://localhost/auth/csrf"), config);
      const cookie = csrf.headers.getSetCookie()[0].split(";")[0];
      const { csrfToken } = await csrf.json();
      const signIn = await Auth(new Request("http://localhost/auth/callback/credentials", {
        method: "POST", headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ csrfToken, u: "a" }) }), config);
      const token = await encode({ token: { sub: "1" }, secret: "k", salt: "s" });
      console.log(JSON.stringify({
        status: signIn.status, session: signIn.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token=")),
        decoded: (await decode({ token, secret: "k", salt: "s" })).sub, action: isAuthAction("csrf"),
        error: new CredentialsSignin().code, date: isDate("2026-01-01"), email: Email({ sendVerificationRequest() {} }).type,
      }));
    `);
    expect(JSON.parse(out)).toEqual({
      status: 302,
      session: true,
      decoded: "1",
      action: true,
      error: "credentials",
      date: true,
      email: "email",
    });
  });

  test("OAuth code is loaded only when an OAuth provider is used (and then needs oauth4webapi)", () => {
    const result = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `
        import { Auth, skipCSRFCheck } from "@gatehousejs/core";
        import OIDC from "@gatehousejs/core/providers/oidc";
        const config = { secret: "s".repeat(32), trustHost: true, skipCSRFCheck,
          providers: [OIDC({ issuer: "http://127.0.0.1:9", clientId: "x" })] };
        const page = await Auth(new Request("http://localhost/auth/providers"), config);
        console.log(page.status);
        await Auth(new Request("http://localhost/auth/signin/oidc", { method: "POST" }), config);
      `,
      ],
      { cwd: folder, encoding: "utf8" },
    );
    // Listing providers works without the OAuth library; starting an OAuth flow loads it.
    expect(result.stdout.trim()).toBe("200");
    expect(result.stderr).toMatch(/Cannot find package 'oauth4webapi'/);
  });
});

/** What `npm pack` would put in a package's tarball, and the manifest it would publish. */
function packed(dir: string) {
  const [report] = JSON.parse(
    execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      cwd: dir,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }),
  ) as [{ files: { path: string }[] }];
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
    name: string;
    type?: string;
    license?: string;
    engines?: { node?: string };
    repository?: { type?: string; url?: string; directory?: string };
    scripts?: Record<string, string>;
  };
  return { files: report.files.map((f) => f.path), pkg };
}

describe("every package as published", () => {
  const packages = readdirSync(join(root, "packages")).filter((name) =>
    existsSync(join(root, "packages", name, "package.json")),
  );

  test("every package of the workspace is checked", () => {
    expect(packages).toEqual(
      expect.arrayContaining([
        "adapter-test",
        "core",
        "mikro-orm-adapter",
        "pg-adapter",
        "redis-adapter",
      ]),
    );
  });

  test.each(packages)(
    "packages/%s: README, LICENSE, engines, repository and a prepack build",
    (name) => {
      const dir = join(root, "packages", name);
      const { files, pkg } = packed(dir);
      expect(files).toContain("README.md");
      expect(files).toContain("LICENSE");
      expect(files).toContain("package.json");
      if (existsSync(join(dir, "dist/index.js"))) {
        expect(files).toContain("dist/index.js");
        expect(files).toContain("dist/index.d.ts");
      }
      // Nothing from the test folders or the build's bookkeeping.
      expect(files.filter((f) => /^test\/|tsbuildinfo$/.test(f))).toEqual([]);

      expect(pkg.type).toBe("module");
      expect(pkg.license).toBe("ISC");
      expect(pkg.engines?.node).toBe(">=20.19");
      expect(pkg.repository).toMatchObject({
        type: "git",
        url: expect.stringMatching(/^git\+https:\/\/.+\.git$/),
        directory: `packages/${name}`,
      });
      expect(pkg.scripts?.prepack).toBe("npm run build");
      expect(pkg.scripts?.build).toMatch(/^tsc -b /);

      const license = readFileSync(join(dir, "LICENSE"), "utf8");
      expect(license).toMatch(/^ISC License\n/);
      expect(license).toContain("Copyright (c) 2026 Gatehouse contributors");
      expect(license).toBe(readFileSync(join(root, "LICENSE"), "utf8"));

      const readme = readFileSync(join(dir, "README.md"), "utf8");
      expect(readme).toMatch(/^# @gatehousejs\//);
      expect(readme, "the README says the package is ESM-only").toMatch(/ESM-only/);
      expect(readme, "the README names the Node.js version").toMatch(/Node\.js 20\.19 or later/);
    },
  );
});
