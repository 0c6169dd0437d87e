/**
 * What a process loads: the session check (the cost of every page) must not load `jose`,
 * `oauth4webapi`, `@simplewebauthn/server`, the pages or the OAuth code; they load on the first
 * request that needs them. Runs the built package (`npm test` builds it first) in a fresh Node
 * process with a loader hook that lists every module.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, test } from "vitest";

const run = promisify(execFile);
const core = join(dirname(fileURLToPath(import.meta.url)), "..");
const built = existsSync(join(core, "dist", "index.js"));

const hooks = `data:text/javascript,${encodeURIComponent(
  'import { register } from "node:module";' +
    "register(" +
    JSON.stringify(
      `data:text/javascript,${encodeURIComponent(
        'import { writeSync } from "node:fs";' +
          "export async function load(url, context, next) {" +
          ' writeSync(2, "loaded " + url + "\\n"); return next(url, context); }',
      )}`,
    ) +
    ");",
)}`;

/** Runs `body` after a session check in a fresh process; returns the modules loaded after the marker. */
async function modulesLoadedBy(then: string): Promise<{ before: string[]; after: string[] }> {
  const script = `
    import { Auth } from "@gatehousejs/core";
    import { encode } from "@gatehousejs/core/jwt";
    import Credentials from "@gatehousejs/core/providers/credentials";
    const secret = "lazy-loading-test-secret-0123456789abcdef";
    const config = { secret, trustHost: true, providers: [Credentials({ authorize: () => null })] };
    const token = await encode({ token: { sub: "1", name: "A" }, secret, salt: "authjs.session-token" });
    const headers = { cookie: "authjs.session-token=" + token };
    const session = await (await Auth(new Request("http://localhost/auth/session", { headers }), config)).json();
    if (session?.user?.name !== "A") throw new Error("no session");
    process.stderr.write("MARKER\\n");
    ${then}
  `;
  const { stderr } = await run(
    process.execPath,
    ["--import", hooks, "--input-type=module", "-e", script],
    {
      cwd: core,
    },
  );
  const lines = stderr.split("\n");
  const marker = lines.indexOf("MARKER");
  expect(marker).toBeGreaterThan(0);
  const urls = (part: string[]) =>
    part.filter((l) => l.startsWith("loaded ")).map((l) => l.slice("loaded ".length));
  return { before: urls(lines.slice(0, marker)), after: urls(lines.slice(marker + 1)) };
}

const heavy = [
  "/node_modules/jose/",
  "/node_modules/oauth4webapi/",
  "/node_modules/@simplewebauthn/",
  // The flows; lib/oauth/provider.js (normalising the configuration) is light and loads early.
  "/dist/lib/oauth/signin.js",
  "/dist/lib/oauth/callback.js",
  "/dist/lib/oauth/server.js",
  // The pages; lib/pages/csp.js (the header helper every response module imports) is tiny.
  "/dist/lib/pages/index.js",
  "/dist/lib/pages/signin.js",
  "/dist/lib/pages/css.js",
  "/dist/lib/webauthn/",
  "/dist/lib/email/",
];

describe.skipIf(!built)("lazy loading (built package)", () => {
  test("import, a credentials config and a JWT session check load none of the heavy modules", async () => {
    const { before } = await modulesLoadedBy("");
    expect(before.some((url) => url.includes("/core/dist/index.js"))).toBe(true);
    for (const part of heavy) {
      expect(
        before.filter((url) => url.includes(part)),
        part,
      ).toEqual([]);
    }
  });

  test("the sign-in page loads its code when first asked (the listing sees late loads)", async () => {
    const { after } = await modulesLoadedBy(`
      const page = await Auth(new Request("http://localhost/auth/signin"), config);
      if (page.status !== 200) throw new Error("no page");
    `);
    expect(after.some((url) => url.includes("/dist/lib/pages/"))).toBe(true);
  });
});
