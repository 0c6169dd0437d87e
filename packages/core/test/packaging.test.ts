/**
 * The published package, as npm would ship it: pack the tarball, unpack it into a clean folder,
 * and import every export from there, through the exports map and the built `dist/`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

const root = resolve(import.meta.dirname, "../../..");
const pkgDir = resolve(import.meta.dirname, "..");
const built = existsSync(join(pkgDir, "dist/index.js"));
const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as {
  exports: Record<string, string | Record<string, string>>;
};

let folder = "";

function run(code: string): string {
  return execFileSync(process.execPath, ["--input-type=module", "-e", code], {
    cwd: folder,
    encoding: "utf8",
  });
}

describe.skipIf(!built)("the packed @gatehouse/core", () => {
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), "gatehouse-pack-"));
    const tarball = execFileSync("npm", ["pack", "--silent", "--pack-destination", folder], {
      cwd: pkgDir,
      encoding: "utf8",
    }).trim();
    const target = join(folder, "node_modules/@gatehouse/core");
    mkdirSync(target, { recursive: true });
    execFileSync("tar", ["-xzf", join(folder, tarball), "-C", target, "--strip-components=1"]);
    // Only jose is installed next to it: credentials sign-in must not need oauth4webapi.
    symlinkSync(join(root, "node_modules/jose"), join(folder, "node_modules/jose"), "dir");
  });
  afterAll(() => {
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  test("every export resolves to built JavaScript with type declarations", () => {
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      if (typeof target === "string") continue;
      expect(
        existsSync(join(folder, "node_modules/@gatehouse/core", target.default!)),
        subpath,
      ).toBe(true);
      expect(existsSync(join(folder, "node_modules/@gatehouse/core", target.types!)), subpath).toBe(
        true,
      );
    }
  });

  test("the entry points import by name and a credentials sign-in works without oauth4webapi", () => {
    const out = run(`
      import { Auth, isAuthAction } from "@gatehouse/core";
      import Credentials from "@gatehouse/core/providers/credentials";
      import { encode, decode } from "@gatehouse/core/jwt";
      import { CredentialsSignin } from "@gatehouse/core/errors";
      import { isDate } from "@gatehouse/core/adapters";
      import Email from "@gatehouse/core/providers/email";
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
        import { Auth, skipCSRFCheck } from "@gatehouse/core";
        import OIDC from "@gatehouse/core/providers/oidc";
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
