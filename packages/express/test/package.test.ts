/**
 * The package as published: `npm pack` (which builds it), the tarball unpacked into a folder
 * outside the repository, and an Express 5 app and an Express 4 app importing it from there with
 * plain Node.js (no source condition, no TypeScript), answering over HTTP.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";

const pkgDir = resolve(import.meta.dirname, "..");
const root = resolve(pkgDir, "../..");
let folder = "";
let files: string[] = [];

/** The installed Express of each app folder: Express 5, and Express 4 (the alias `express4`). */
const installs = [
  { major: 5, module: "express" },
  { major: 4, module: "express4" },
] as const;

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), "gatehouse-express-pack-"));
  const [packed] = JSON.parse(
    execFileSync("npm", ["pack", "--json", "--pack-destination", folder], {
      cwd: pkgDir,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }),
  ) as { filename: string; files: { path: string }[] }[];
  files = packed!.files.map((f) => f.path);
  // An app folder per Express version, each with its own unpacked copy of the package, so that
  // the package's `import express` finds that folder's Express.
  for (const { major, module } of installs) {
    const app = join(folder, `express${major}`);
    const scope = join(app, "node_modules", "@gatehousejs");
    mkdirSync(scope, { recursive: true });
    execFileSync("tar", ["-xzf", join(folder, packed!.filename), "-C", scope]);
    execFileSync("mv", [join(scope, "package"), join(scope, "express")]);
    // Its peers, as an app would have them installed.
    symlinkSync(join(root, "packages/core"), join(scope, "core"), "dir");
    symlinkSync(join(root, "node_modules", module), join(app, "node_modules/express"), "dir");
  }
}, 120_000);

afterAll(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
});

test("the tarball holds the built entry, its declarations, the README and the license", () => {
  for (const file of ["dist/index.js", "dist/index.d.ts", "README.md", "LICENSE", "package.json"]) {
    expect(files).toContain(file);
  }
  expect(files.filter((f) => f.startsWith("test/"))).toEqual([]);
});

test.each(installs)(
  "an Express $major app imports the unpacked package with plain Node.js and answers over HTTP",
  ({ major }) => {
    const cwd = join(folder, `express${major}`);
    const app = join(cwd, "app.mjs");
    writeFileSync(
      app,
      `
import { createRequire } from "node:module";
import express from "express";
import { gatehouse, requireAuth } from "@gatehousejs/express";
import Credentials from "@gatehousejs/core/providers/credentials";

const app = express();
app.use(gatehouse({
  secret: "express-package-test-secret-0123456789",
  trustHost: true,
  providers: [Credentials({ authorize: () => null })],
}));
app.get("/account", requireAuth(), (_req, res) => res.send("secret"));
const server = app.listen(0, "127.0.0.1", async () => {
  const origin = "http://127.0.0.1:" + server.address().port;
  const csrf = await fetch(origin + "/api/auth/csrf");
  const { csrfToken } = await csrf.json();
  const account = await fetch(origin + "/account", { redirect: "manual", headers: { accept: "text/html" } });
  console.log(JSON.stringify({
    express: createRequire(import.meta.url)("express/package.json").version.split(".")[0],
    csrf: csrf.status,
    token: typeof csrfToken,
    cookies: csrf.headers.getSetCookie().length,
    account: account.status,
    location: account.headers.get("location"),
  }));
  server.close();
});
`,
    );
    const out = execFileSync(process.execPath, [app], { cwd, encoding: "utf8" });
    expect(JSON.parse(out)).toEqual({
      express: String(major),
      csrf: 200,
      token: "string",
      cookies: 1,
      account: 302,
      location: "/api/auth/signin?callbackUrl=%2Faccount",
    });
  },
  30_000,
);
