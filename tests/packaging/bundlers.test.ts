/**
 * The built-in sign-in methods and features are installed by the package's entry module, so a
 * bundler must keep that module even when an app only reaches `Auth` through it. Rollup (what
 * Vite, Vinxi and SolidStart build with) skips a re-exporting module declared free of side
 * effects: this bundles a credentials app with Rollup the way those tools resolve packages, runs
 * the bundle and signs in. With the entry dropped, the sign-in has no method and fails.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { nodeResolve } from "@rollup/plugin-node-resolve";
import { rollup } from "rollup";
import { afterAll, expect, test } from "vitest";

mkdirSync(join(process.cwd(), "node_modules", ".cache"), { recursive: true });
// Inside the repository, so that the app resolves the workspace's built packages.
const dir = mkdtempSync(join(process.cwd(), "node_modules", ".cache", "gatehouse-rollup-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const app = `
import { Auth } from "@gatehousejs/core";
import Credentials from "@gatehousejs/core/providers/credentials";
export const config = {
  secret: "rollup-bundle-test-secret-0123456789abcdef",
  trustHost: true,
  providers: [
    Credentials({
      credentials: { username: {}, password: {} },
      authorize: (c) => (c.username === "alice" && c.password === "wonderland" ? { id: "1", name: "Alice" } : null),
    }),
  ],
};
export const handle = (request) => Auth(request, config);
`;

test("a Rollup bundle of an app that imports Auth from the package root signs in", async () => {
  const entry = join(dir, "app.mjs");
  writeFileSync(entry, app);
  const bundle = await rollup({
    input: entry,
    // Packages outside Gatehouse stay imports, as in a server build.
    external: (id) => !id.startsWith("@gatehousejs/") && !id.startsWith(".") && !id.startsWith("/"),
    plugins: [nodeResolve({ rootDir: process.cwd(), exportConditions: ["node", "import"] })],
    onwarn: () => {},
  });
  // Every Gatehouse module is in the bundle: none is left for Node to resolve at run time.
  const out = join(dir, "dist", "app.mjs");
  await bundle.write({ dir: join(dir, "dist"), entryFileNames: "app.mjs", format: "esm" });
  await bundle.close();
  expect(readFileSync(out, "utf8")).not.toMatch(/from ['"]@gatehousejs\//);
  const { handle } = (await import(pathToFileURL(out).href)) as {
    handle: (r: Request) => Promise<Response>;
  };
  const origin = "http://localhost:3000";
  const csrf = await handle(new Request(`${origin}/auth/csrf`));
  const cookie = csrf.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const signedIn = await handle(
    new Request(`${origin}/auth/callback/credentials`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie },
      body: new URLSearchParams({ csrfToken, username: "alice", password: "wonderland" }),
    }),
  );
  expect(signedIn.status).toBe(302);
  expect(signedIn.headers.get("location")).toBe(origin);
  expect(signedIn.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token="))).toBe(
    true,
  );
}, 60_000);
