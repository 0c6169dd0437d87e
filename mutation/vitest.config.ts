/**
 * The test suite Stryker runs against each mutant: the fast core suites only (no browser,
 * database or SMTP suites, no packaging test). Workspace packages are aliased to the sources
 * beside this file, because Stryker runs in a copy of the repository, and the `@gatehousejs/*`
 * symlinks in node_modules point back at the original, unmutated sources.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * `MUTATE_TESTS`: a comma-separated list of test files (or globs, from the repository root) to
 * run instead of the whole core suite. For a one-module run while someone else's unfinished work
 * leaves an unrelated suite red: Stryker needs a green first run. List every test file that
 * exercises the module, or killable mutants survive for lack of the tests that exist.
 */
const only = (process.env.MUTATE_TESTS ?? "")
  .split(",")
  .map((entry) => entry.trim())
  .filter((entry) => entry !== "");

interface Manifest {
  name: string;
  exports?: Record<string, string | Record<string, string> | null>;
}

/** `@gatehousejs/<pkg>/<subpath>` → its source file, for every package of the workspace. */
function sourceAliases(): { find: RegExp; replacement: string }[] {
  const aliases: { find: RegExp; replacement: string }[] = [];
  for (const dir of readdirSync(join(root, "packages"))) {
    let manifest: Manifest;
    try {
      manifest = JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8"));
    } catch {
      continue;
    }
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      // A `null` target closes a subpath (`"./internal/*": null`): nothing to alias.
      const source =
        typeof target === "object" && target !== null ? target["gatehouse-source"] : undefined;
      if (!source) continue;
      const specifier = manifest.name + subpath.slice(1);
      const escaped = specifier.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
      aliases.push({
        find: new RegExp(`^${escaped}$`),
        replacement: join(root, "packages", dir, source),
      });
    }
  }
  return aliases;
}

export default defineConfig({
  root,
  resolve: { conditions: ["gatehouse-source"], alias: sourceAliases() },
  ssr: { resolve: { conditions: ["gatehouse-source"] } },
  test: {
    include: only.length > 0 ? only : ["packages/core/test/**/*.test.ts"],
    exclude: [
      "**/node_modules/**",
      // Packs and builds the package: nothing in it reads the mutated sources.
      "packages/core/test/packaging.test.ts",
      // Self-tests of the test servers.
      "packages/core/test/support/**",
    ],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
