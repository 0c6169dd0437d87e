/**
 * What a process loads: the session check (the cost of every page) must not load `jose`,
 * `oauth4webapi`, `@simplewebauthn/server`, the pages or the OAuth code; they load on the first
 * request that needs them. Runs the built package (`npm test` builds it first) in a fresh Node
 * process with a loader hook that lists every module.
 *
 * dist/ is bundled (scripts/bundle.mjs): a loaded file holds several source modules, so the
 * checks read each file's source map and ask which source modules were loaded. The number of
 * files a cold start loads is named here, and the test fails when it grows.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { encode } from "@gatehousejs/core/jwt";
import { describe, expect, test } from "vitest";
import { builtModules } from "../scripts/dist-sources.mjs";

const run = promisify(execFile);
const core = join(dirname(fileURLToPath(import.meta.url)), "..");
const built = existsSync(join(core, "dist", "index.js"));

/**
 * The files of core's dist/ that importing `Auth` from the root and the Credentials provider, and
 * answering a first GET /session with a JWT cookie, load all told (72 when dist/ was tsc's, one
 * file per source module). Lower it when a change lowers the count.
 */
const COLD_SESSION_FILES = 4;

const secret = "lazy-loading-test-secret-0123456789abcdef";

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

/** The module URLs a fresh process loads to run `script`, split at its `MARKER` line. */
async function loadedBy(
  script: string,
  env: Record<string, string> = {},
): Promise<{ before: string[]; after: string[] }> {
  const { stderr } = await run(
    process.execPath,
    ["--import", hooks, "--input-type=module", "-e", script],
    { cwd: core, env: { ...process.env, ...env } },
  );
  const lines = stderr.split("\n");
  const marker = lines.indexOf("MARKER");
  expect(marker, stderr).toBeGreaterThanOrEqual(0);
  const urls = (part: string[]) =>
    part.filter((l) => l.startsWith("loaded ")).map((l) => l.slice("loaded ".length));
  return { before: urls(lines.slice(0, marker)), after: urls(lines.slice(marker + 1)) };
}

/** Runs `then` after a session check in a fresh process; returns the modules loaded before and after. */
function modulesLoadedBy(then: string): Promise<{ before: string[]; after: string[] }> {
  return loadedBy(`
    import { Auth } from "@gatehousejs/core";
    import { encode } from "@gatehousejs/core/jwt";
    import Credentials from "@gatehousejs/core/providers/credentials";
    const secret = ${JSON.stringify(secret)};
    const config = { secret, trustHost: true, providers: [Credentials({ authorize: () => null })] };
    const token = await encode({ token: { sub: "1", name: "A" }, secret, salt: "authjs.session-token" });
    const headers = { cookie: "authjs.session-token=" + token };
    const session = await (await Auth(new Request("http://localhost/auth/session", { headers }), config)).json();
    if (session?.user?.name !== "A") throw new Error("no session");
    process.stderr.write("MARKER\\n");
    ${then}
  `);
}

/** What `urls` loaded: the packages' URLs as they are, core's built files as their source modules. */
function loadedModules(urls: string[]): string[] {
  const ours = builtModules(urls, core);
  const others = urls.filter((url) => !ours.some((m) => m.url === url));
  return [...others, ...ours.flatMap((m) => m.sources)];
}

/** Packages and source modules a session check must not load (`src/…` is core's source). */
const heavy: RegExp[] = [
  /\/node_modules\/jose\//,
  /\/node_modules\/oauth4webapi\//,
  /\/node_modules\/@simplewebauthn\//,
  // The OAuth flows; their declaration (method.ts) and lib/oauth/provider.ts (normalising the
  // configuration) are light and load early.
  /^src\/lib\/sign-in\/oauth\/(?!method\.ts$)/,
  /^src\/lib\/oauth\/(?!provider\.ts$)/,
  // The pages; lib/pages/csp.ts (the header helper every response module imports) is tiny.
  /^src\/lib\/pages\/(?!csp\.ts$)/,
  // The WebAuthn ceremonies and the email flows: only their declarations (method, routes) and
  // the small modules the provider factories share with them load early.
  /^src\/lib\/sign-in\/webauthn\/(?!method\.ts$|route-options\.ts$|constants\.ts$|library\.ts$)/,
  /^src\/lib\/sign-in\/email\/(?!method\.ts$|route-verify-request\.ts$)/,
  /^src\/lib\/email\//,
  // The other actions (sign-in, callback, sign-out, pages) and the credentials sign-in.
  /^src\/lib\/actions\/(?!session\.ts$|csrf\.ts$)/,
  /^src\/lib\/sign-in\/credentials\/(?!method\.ts$)/,
];

describe.skipIf(!built)("lazy loading (built package)", () => {
  test("import, a credentials config and a JWT session check load none of the heavy modules", async () => {
    const { before } = await modulesLoadedBy("");
    expect(before.some((url) => url.endsWith("/core/dist/index.js"))).toBe(true);
    const modules = loadedModules(before);
    // The listing sees the kernel's code inside the bundled files.
    expect(modules).toContain("src/lib/auth.ts");
    expect(modules).toContain("src/lib/session/jwt.ts");
    for (const part of heavy) {
      expect(
        modules.filter((m) => part.test(m)),
        String(part),
      ).toEqual([]);
    }
  });

  test(`importing core and answering a first /session loads at most ${COLD_SESSION_FILES} files, all core's`, async () => {
    // The cookie is made here (core's sources, in this process), so that the process loads only what a server
    // answering its first request loads.
    const token = await encode({
      token: { sub: "1", name: "A" },
      secret,
      salt: "authjs.session-token",
    });
    const { before, after } = await loadedBy(
      `
      process.stderr.write("MARKER\\n");
      const { Auth } = await import("@gatehousejs/core");
      const { default: Credentials } = await import("@gatehousejs/core/providers/credentials");
      const config = { secret: ${JSON.stringify(secret)}, trustHost: true, providers: [Credentials({ authorize: () => null })] };
      const headers = { cookie: "authjs.session-token=" + process.env.SESSION_TOKEN };
      const session = await (await Auth(new Request("http://localhost/auth/session", { headers }), config)).json();
      if (session?.user?.name !== "A") throw new Error("no session");
      `,
      { SESSION_TOKEN: token },
    );
    expect(builtModules(before, core)).toEqual([]);
    const files = builtModules(after, core);
    // No package, and nothing but core's built files and node: builtins.
    expect(
      after.filter((url) => !url.startsWith("node:") && !files.some((f) => f.url === url)),
    ).toEqual([]);
    expect(files.length, files.map((f) => f.url).join("\n")).toBeLessThanOrEqual(
      COLD_SESSION_FILES,
    );
    // They hold the kernel's session check, not a stub that loads it later.
    expect(files.flatMap((f) => f.sources)).toContain("src/lib/session/jwt.ts");
  });

  test("the sign-in page loads its code when first asked (the listing sees late loads)", async () => {
    const { after } = await modulesLoadedBy(`
      const page = await Auth(new Request("http://localhost/auth/signin"), config);
      if (page.status !== 200) throw new Error("no page");
    `);
    const modules = loadedModules(after);
    expect(modules).toContain("src/lib/pages/signin.ts");
    expect(modules.some((m) => heavy.some((part) => part.test(m)))).toBe(true);
  });
});
