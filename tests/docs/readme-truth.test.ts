/**
 * The README's lists that drift when a capability lands: every subpath export of
 * `@gatehousejs/core` is named there (providers may be named in docs/providers.md instead), and
 * no capability that works is announced as coming.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { root } from "./markdown.js";

const readme = readFileSync(join(root, "README.md"), "utf8");
const providersDoc = readFileSync(join(root, "docs/providers.md"), "utf8");
const manifest = JSON.parse(readFileSync(join(root, "packages/core/package.json"), "utf8")) as {
  exports: Record<string, unknown>;
};
/** The providers behind the `./providers/*` export: the modules of packages/core/src/providers. */
const providerIds = readdirSync(join(root, "packages/core/src/providers"))
  .filter((name) => /^[a-z0-9-]+\.ts$/.test(name))
  .map((name) => name.slice(0, -".ts".length));

test("every subpath export of core is named in the README (or, for providers, in docs/providers.md)", () => {
  // A null target keeps a path private (`./providers/_shared/*`): nothing to name.
  const subpaths = Object.keys(manifest.exports).filter(
    (subpath) => subpath !== "./package.json" && manifest.exports[subpath] !== null,
  );
  expect(subpaths).toContain("./providers/*");
  const missing = [
    ...subpaths.filter((subpath) => !readme.includes(`\`${subpath}\``)),
    ...providerIds
      .map((id) => `./providers/${id}`)
      .filter((subpath) => !readme.includes(`\`${subpath}\``))
      .filter((subpath) => !providersDoc.includes(subpath.slice("./providers/".length))),
  ];
  expect(providerIds.length).toBeGreaterThanOrEqual(25);
  expect(missing).toEqual([]);
});

test("the README announces nothing as coming that already works", () => {
  expect(readme).not.toMatch(/\(soon\)/i);
});
