/**
 * The `@example` blocks of the package's TSDoc compile, as the documentation's blocks do
 * (tests/docs): an example that drifts from the API fails here, not in a user's editor.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { expect, test } from "vitest";
import type { Block } from "../../../tests/docs/markdown.js";
import { root } from "../../../tests/docs/markdown.js";
import { typecheck } from "../../../tests/docs/typecheck.js";

const srcDir = join(import.meta.dirname, "../src");

/** The fenced TypeScript blocks of each TSDoc comment of a source file. */
function examplesOf(path: string): Block[] {
  const file = relative(root, path).split("\\").join("/");
  const lines = readFileSync(path, "utf8").split("\n");
  const blocks: Block[] = [];
  let open: { line: number; code: string[] } | undefined;
  lines.forEach((text, index) => {
    const body = text.replace(/^\s*\* ?/, "");
    if (!open && /^```ts\s*$/.test(body)) open = { line: index + 1, code: [] };
    else if (open && /^```\s*$/.test(body)) {
      blocks.push({
        file,
        line: open.line,
        code: `${open.code.join("\n")}\n`,
        language: "ts",
        marker: null,
      });
      open = undefined;
    } else open?.code.push(body);
  });
  return blocks;
}

const examples = readdirSync(srcDir)
  .filter((name) => name.endsWith(".ts"))
  .flatMap((name) => examplesOf(join(srcDir, name)));

test("every public middleware has an example, and every example compiles", () => {
  const files = new Set(examples.map((b) => b.file.replace(/^.*\//, "")));
  for (const name of ["gatehouse.ts", "handler.ts", "session.ts", "protect.ts", "route-state.ts"]) {
    expect(files, name).toContain(name);
  }
  const problems = typecheck(examples);
  const report = examples.flatMap((block) =>
    (problems.get(block) ?? []).map((p) => `${p.at} TS${p.code}: ${p.message}`),
  );
  expect(report).toEqual([]);
}, 120_000);
