/**
 * What the new entries load, in the built package: importing core's root loads neither the
 * browser client nor the integration kit; the client loads only its own modules (no server
 * code, no dependency); the kit loads no client module and none of the heavy modules (OAuth,
 * WebAuthn, pages, email, jose) until a request needs them. A fresh Node process per case, with
 * a loader hook that lists every module. dist/ is bundled (scripts/bundle.mjs): each loaded file
 * is read as the source modules its source map names.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, test } from "vitest";
import { builtModules } from "../scripts/dist-sources.mjs";

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

/** What `urls` loaded: core's built files as the source modules they hold, the rest as they are. */
function modules(urls: string[]): string[] {
  const ours = builtModules(urls, core);
  const others = urls.filter((url) => !ours.some((m) => m.url === url));
  return [...others, ...ours.flatMap((m) => m.sources)];
}

const under = (list: string[], part: string) => list.filter((item) => item.includes(part));

/** Packages and source modules (`src/…`) the kit must not load before a request needs them. */
const heavy: RegExp[] = [
  /\/node_modules\/jose\//,
  /\/node_modules\/oauth4webapi\//,
  /\/node_modules\/@simplewebauthn\//,
  /^src\/lib\/sign-in\/oauth\/(?!method\.ts$)/,
  /^src\/lib\/oauth\/(?!provider\.ts$)/,
  /^src\/lib\/pages\/(?!csp\.ts$)/,
  /^src\/lib\/sign-in\/webauthn\/(?!method\.ts$|route-options\.ts$|constants\.ts$|library\.ts$)/,
  /^src\/lib\/sign-in\/email\/(?!method\.ts$|route-verify-request\.ts$)/,
  /^src\/lib\/email\//,
];

describe.skipIf(!built)("the client and integration entries (built package)", () => {
  test("importing core's root loads neither the client nor the integration kit", async () => {
    const loaded = await modulesLoadedBy('await import("@gatehousejs/core");');
    expect(loaded.filter((url) => url.endsWith("/core/dist/index.js"))).toHaveLength(1);
    const sources = modules(loaded);
    expect(sources).toContain("src/index.ts");
    expect(under(sources, "src/client/")).toEqual([]);
    expect(under(sources, "src/integration/")).toEqual([]);
  });

  test("the client loads its own modules only: no server code, no package", async () => {
    const loaded = await modulesLoadedBy(
      'const client = await import("@gatehousejs/core/client");' +
        'if (typeof client.withPasskeys !== "function") throw new Error("no client");',
    );
    expect(loaded.filter((url) => url.endsWith("/core/dist/client/index.js"))).toHaveLength(1);
    // Every file it loads is core's, and holds client modules only.
    const ours = builtModules(loaded, core);
    expect(
      loaded.filter((url) => url.startsWith("file:") && !ours.some((m) => m.url === url)),
    ).toEqual([]);
    const sources = ours.flatMap((m) => m.sources);
    expect(sources).toContain("src/client/sign-in.ts");
    expect(sources.filter((source) => !source.startsWith("src/client/"))).toEqual([]);
  });

  test("the kit loads no client module, and none of the heavy ones until a request needs them", async () => {
    const loaded = await modulesLoadedBy(
      'const kit = await import("@gatehousejs/core/integration");' +
        'if (typeof kit.createAuthRoute !== "function") throw new Error("no kit");',
    );
    expect(loaded.filter((url) => url.endsWith("/core/dist/integration/index.js"))).toHaveLength(1);
    const sources = modules(loaded);
    expect(sources).toContain("src/integration/route.ts");
    expect(under(sources, "src/client/")).toEqual([]);
    for (const part of heavy) {
      expect(
        sources.filter((m) => part.test(m)),
        String(part),
      ).toEqual([]);
    }
  });
});
