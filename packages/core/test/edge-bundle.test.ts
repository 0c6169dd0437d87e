/**
 * What a Workers bundle of an app carries. A bundler follows every `import()` it can see, so code
 * that is only loaded lazily at run time still lands in the bundle if core names it. An app
 * without a WebAuthn provider must carry none of `@simplewebauthn/server` (an optional peer, often
 * installed), and no bundle may need a `node:` module (a Worker without `nodejs_compat` has none).
 * The sizes are in bench/ (`node bench/edge-bundle.mjs`); this checks what is in the bundle.
 */

import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Metafile } from "esbuild";
import { describe, expect, test } from "vitest";

const core = join(dirname(fileURLToPath(import.meta.url)), "..");

/** A module worker on core's sources, with `providers` (expressions) and their imports. */
function worker(imports: string, providers: string): string {
  return `
    import { Auth } from "@gatehousejs/core";
    import Credentials from "@gatehousejs/core/providers/credentials";
    ${imports}
    const config = {
      secret: "edge-bundle-test-secret-0123456789abcdef",
      trustHost: true,
      experimental: { enableWebAuthn: true },
      providers: [Credentials({ authorize: async () => null }), ${providers}],
    };
    export default { fetch: (req) => Auth(req, config) };
  `;
}

/** Bundles `source` as a Workers build does; returns the input paths and the imports left out. */
async function bundle(source: string): Promise<{ inputs: string[]; external: string[] }> {
  const result = await build({
    stdin: { contents: source, resolveDir: core, loader: "js" },
    bundle: true,
    write: false,
    metafile: true,
    format: "esm",
    platform: "neutral",
    conditions: ["gatehouse-source", "worker", "browser"],
    mainFields: ["browser", "module", "main"],
    external: ["node:*"],
    minify: true,
    logLevel: "silent",
  });
  const meta: Metafile = result.metafile;
  const [output] = Object.values(meta.outputs);
  const external = Object.values(meta.inputs).flatMap((input) =>
    input.imports.filter((i) => i.external).map((i) => i.path),
  );
  return { inputs: Object.keys(output!.inputs), external };
}

const simpleWebAuthn = (inputs: string[]) => inputs.filter((p) => p.includes("/@simplewebauthn/"));

/** The code of listing and removing passkeys, which the WebAuthn providers carry. */
const passkeyActions = (inputs: string[]) =>
  inputs.filter((p) => p.endsWith("features/passkeys/actions.ts"));

describe("a Workers bundle (esbuild, platform neutral, worker and browser conditions)", () => {
  test("a credentials + JWT app carries no @simplewebauthn code and needs no node: module", async () => {
    const { inputs, external } = await bundle(worker("", ""));
    // The check looks at core's sources, as the bundle does.
    expect(inputs.some((p) => p.endsWith("src/lib/auth.ts"))).toBe(true);
    expect(simpleWebAuthn(inputs)).toEqual([]);
    expect(passkeyActions(inputs)).toEqual([]);
    expect(external).toEqual([]);
  }, 30_000);

  test("an app with a passkey provider carries @simplewebauthn/server (the check sees it)", async () => {
    const { inputs, external } = await bundle(
      worker('import Passkey from "@gatehousejs/core/providers/passkey";', "Passkey()"),
    );
    expect(simpleWebAuthn(inputs)).toContainEqual(
      expect.stringContaining("/@simplewebauthn/server/"),
    );
    expect(passkeyActions(inputs)).toHaveLength(1);
    expect(external).toEqual([]);
  }, 30_000);
});
