/**
 * What the new entries load, in the built package: importing core's root loads neither the
 * browser client nor the integration kit; the client loads only its own modules (no server
 * code, no dependency); the kit loads no client module and none of the heavy modules (OAuth,
 * WebAuthn, pages, email, jose) until a request needs them. A fresh Node process per case, with
 * a loader hook that lists every module.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, test } from "vitest";

const run = promisify(execFile);
const core = join(import.meta.dirname, "..");
const built = ["index.js", "client/index.js", "integration/index.js"].every((file) =>
  existsSync(join(core, "dist", file)),
);

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

/** The URLs of the modules a fresh process loads to run `script` (built package, no source). */
async function modulesLoadedBy(script: string): Promise<string[]> {
  const { stderr } = await run(
    process.execPath,
    ["--import", hooks, "--input-type=module", "-e", script],
    { cwd: core },
  );
  return stderr
    .split("\n")
    .filter((line) => line.startsWith("loaded "))
    .map((line) => line.slice("loaded ".length));
}

const under = (urls: string[], part: string) => urls.filter((url) => url.includes(part));

const heavy = [
  "/node_modules/jose/",
  "/node_modules/oauth4webapi/",
  "/node_modules/@simplewebauthn/",
  "/dist/lib/oauth/signin.js",
  "/dist/lib/oauth/callback.js",
  "/dist/lib/pages/index.js",
  "/dist/lib/webauthn/",
  "/dist/lib/email/",
];

describe.skipIf(!built)("the client and integration entries (built package)", () => {
  test("importing core's root loads neither the client nor the integration kit", async () => {
    const loaded = await modulesLoadedBy('await import("@gatehousejs/core");');
    expect(under(loaded, "/core/dist/index.js")).toHaveLength(1);
    expect(under(loaded, "/dist/client/")).toEqual([]);
    expect(under(loaded, "/dist/integration/")).toEqual([]);
  });

  test("the client loads its own modules only: no server code, no package", async () => {
    const loaded = await modulesLoadedBy(
      'const client = await import("@gatehousejs/core/client");' +
        'if (typeof client.withPasskeys !== "function") throw new Error("no client");',
    );
    const ours = loaded.filter((url) => url.startsWith("file:"));
    expect(under(ours, "/dist/client/index.js")).toHaveLength(1);
    expect(ours.filter((url) => !url.includes("/core/dist/client/"))).toEqual([]);
  });

  test("the kit loads no client module, and none of the heavy ones until a request needs them", async () => {
    const loaded = await modulesLoadedBy(
      'const kit = await import("@gatehousejs/core/integration");' +
        'if (typeof kit.createAuthRoute !== "function") throw new Error("no kit");',
    );
    expect(under(loaded, "/dist/integration/index.js")).toHaveLength(1);
    expect(under(loaded, "/dist/client/")).toEqual([]);
    for (const part of heavy) expect(under(loaded, part), part).toEqual([]);
  });
});
