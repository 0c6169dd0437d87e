/**
 * The README's lists that drift when a capability lands: every subpath export of
 * `@gatehousejs/core` is named there (providers may be named in docs/providers.md instead), and
 * no capability that works is announced as coming.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { root } from "./markdown.js";

const readme = readFileSync(join(root, "README.md"), "utf8");
const providersDoc = readFileSync(join(root, "docs/providers.md"), "utf8");
const manifest = JSON.parse(readFileSync(join(root, "packages/core/package.json"), "utf8")) as {
  exports: Record<string, unknown>;
};

test("every subpath export of core is named in the README (or, for providers, in docs/providers.md)", () => {
  const missing = Object.keys(manifest.exports).filter((subpath) => {
    if (subpath === "./package.json") return false;
    const named = readme.includes(`\`${subpath}\``);
    if (subpath.startsWith("./providers/")) {
      const name = subpath.slice("./providers/".length);
      return !named && !providersDoc.includes(name);
    }
    return !named;
  });
  expect(missing).toEqual([]);
});

test("the README announces nothing as coming that already works", () => {
  expect(readme).not.toMatch(/\(soon\)/i);
});
