/**
 * One way to make a secret, everywhere: the command the docs print to generate `AUTH_SECRET` is
 * the one the `MissingSecret` error names, so a newcomer copying either gets the same strength.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { root } from "./markdown.js";

const COMMAND = /openssl rand -base64 (\d+)/g;

function markdownFiles(): string[] {
  const files = ["README.md", "examples/solid-start/README.md"];
  for (const dir of ["docs", ...readdirSync(join(root, "packages")).map((p) => `packages/${p}`)]) {
    for (const name of readdirSync(join(root, dir))) {
      if (name.endsWith(".md")) files.push(`${dir}/${name}`);
    }
  }
  return files;
}

test("every secret command in the docs matches the one the MissingSecret error names", () => {
  const config = readFileSync(join(root, "packages/core/src/lib/config.ts"), "utf8");
  const named = [...config.matchAll(COMMAND)].map((m) => m[1]);
  expect(named.length).toBeGreaterThan(0);
  const [bytes] = named;
  expect(new Set(named)).toEqual(new Set([bytes]));
  const found: string[] = [];
  for (const file of markdownFiles()) {
    for (const m of readFileSync(join(root, file), "utf8").matchAll(COMMAND)) {
      found.push(`${file}: ${m[0]}`);
      expect(`${file}: ${m[1]}`).toBe(`${file}: ${bytes}`);
    }
  }
  expect(found.length).toBeGreaterThan(2);
});
