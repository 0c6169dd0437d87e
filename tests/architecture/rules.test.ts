/**
 * The import rules of `npm run architecture` (.dependency-cruiser.cjs, docs/architecture.md):
 * the repository passes them, and a small tree that breaks each one fails it, so the rules
 * cannot pass whatever the code does.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, describe, expect, test } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const bin = join(root, "node_modules/.bin/depcruise");
const config = join(root, ".dependency-cruiser.cjs");

function cruise(cwd: string) {
  const run = spawnSync(bin, ["packages/core/src", "--config", config], { cwd, encoding: "utf8" });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

const trees: string[] = [];
afterAll(() => {
  for (const dir of trees) rmSync(dir, { recursive: true, force: true });
});

/** A tree with the package's layout, its files given as path → source. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-layers-"));
  trees.push(dir);
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { module: "nodenext", moduleResolution: "nodenext" } }),
  );
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  for (const [path, source] of Object.entries(files)) {
    const file = join(dir, "packages/core/src", path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, source);
  }
  return dir;
}

describe("npm run architecture", () => {
  test("the repository keeps every rule", () => {
    const { status, output } = cruise(root);
    expect(output).toContain("no dependency violations found");
    expect(status).toBe(0);
  }, 60_000);

  test("a clean tree passes: features and methods import the kernel, the entry imports all", () => {
    const dir = tree({
      "index.ts": 'import { f } from "./lib/features/f/feature.js";\nexport const x = f;\n',
      "lib/kernel.ts": "export const k = 1;\n",
      "lib/features/f/feature.ts": 'import { k } from "../../kernel.js";\nexport const f = k;\n',
      "lib/sign-in/m/method.ts":
        'import { f } from "../../features/f/feature.js";\nexport const m = f;\n',
    });
    expect(cruise(dir).status).toBe(0);
  }, 60_000);

  test.each([
    [
      "kernel-imports-no-feature",
      {
        "lib/kernel.ts": 'import { f } from "./features/f/feature.js";\nexport const k = f;\n',
        "lib/features/f/feature.ts": "export const f = 1;\n",
      },
    ],
    [
      "kernel-imports-no-feature",
      {
        "lib/kernel.ts": 'export const k = () => import("./sign-in/m/method.js");\n',
        "lib/sign-in/m/method.ts": "export const m = 1;\n",
      },
    ],
    [
      "nothing-imports-the-entry",
      {
        "builtins.ts": "export const all = [];\n",
        "lib/features/f/feature.ts":
          'import { all } from "../../../builtins.js";\nexport const f = all;\n',
      },
    ],
    [
      "features-import-no-method",
      {
        "lib/features/f/feature.ts":
          'import { m } from "../../sign-in/m/method.js";\nexport const f = m;\n',
        "lib/sign-in/m/method.ts": "export const m = 1;\n",
      },
    ],
    [
      "no-circular",
      {
        "lib/a.ts": 'import type { B } from "./b.js";\nexport type A = B;\n',
        "lib/b.ts": 'import type { A } from "./a.js";\nexport type B = A | 1;\n',
      },
    ],
  ])(
    "a tree that breaks %s fails",
    (rule, files) => {
      const { status, output } = cruise(tree(files));
      expect(output).toContain(rule);
      expect(status).not.toBe(0);
    },
    60_000,
  );
});
