/**
 * `@gatehousejs/core/client` in a browser bundle: esbuild, bundling it for the browser platform,
 * takes in the client's own modules and nothing else: no Node.js module, no server code of core
 * (its handler, configuration, crypto), no package. The integration kit, bundled the same way
 * for Node.js, does take the server code in: the check sees it when it is there.
 */
import { resolve } from "node:path";
import { build } from "esbuild";
import { describe, expect, test } from "vitest";

const root = resolve(import.meta.dirname, "../../..");

/** The inputs esbuild bundles for `entry`, as paths under the repository. */
async function inputsOf(entry: string, platform: "browser" | "node"): Promise<string[]> {
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: root,
    bundle: true,
    write: false,
    metafile: true,
    platform,
    format: "esm",
    conditions: ["gatehouse-source"],
    // What a browser build cannot bundle is a finding, not a failure to hide: keep it visible.
    external: ["node:*"],
    logLevel: "silent",
  });
  const outputs = Object.values(result.metafile.outputs);
  const imports = outputs.flatMap((output) => output.imports.map((i) => i.path));
  return [...Object.keys(result.metafile.inputs), ...imports];
}

describe("the client entry in a browser bundle", () => {
  test("holds only the client's own modules: no node:*, no server code, no package", async () => {
    const inputs = await inputsOf("@gatehousejs/core/client", "browser");
    expect(inputs.length).toBeGreaterThan(5);
    for (const input of inputs) {
      expect(input, input).toMatch(/^packages\/core\/src\/client\/[a-z-]+\.ts$/);
    }
  });

  test("the integration kit bundled for Node.js takes in core's server code (the check can fail)", async () => {
    const inputs = await inputsOf("@gatehousejs/core/integration", "node");
    expect(inputs.some((input) => input.startsWith("packages/core/src/integration/"))).toBe(true);
    expect(inputs.some((input) => input.startsWith("packages/core/src/lib/"))).toBe(true);
    expect(inputs.some((input) => input.startsWith("packages/core/src/client/"))).toBe(false);
  });
});
