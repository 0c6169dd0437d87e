/**
 * Documentation that compiles: every TypeScript block of README.md, packages/*\/README.md and
 * docs/**\/*.md is type-checked as a module of its own (strict, NodeNext, no unused locals,
 * package imports resolved to the workspace). A block opts out only with
 * `<!-- docs-check: skip (reason) -->` on the line before its fence.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { type Block, blocksOf, documentationBlocks, documentationFiles, root } from "./markdown.js";
import { type Problem, typecheck } from "./typecheck.js";

const blocks = documentationBlocks();
// A quoted block is part of a source file, compiled with it; quotes.test.ts holds it to the file.
const checked = blocks.filter((b) => b.marker?.kind !== "skip" && b.marker?.kind !== "quote");
const name = (b: Block) => `${b.file}:${b.line}`;

describe("the documentation's TypeScript blocks", () => {
  let problems: Map<Block, Problem[]>;
  beforeAll(() => {
    problems = typecheck(checked);
  }, 180_000);

  test("are found in the README, every package README and docs/", () => {
    const files = documentationFiles();
    expect(files).toContain("README.md");
    expect(files).toContain("packages/core/README.md");
    expect(files).toContain("packages/pg-adapter/README.md");
    expect(files.some((f) => f.startsWith("docs/"))).toBe(true);
    expect(checked.filter((b) => b.file === "README.md").length).toBeGreaterThan(1);
    expect(files).toContain("packages/solid-start/README.md");
    expect(checked.filter((b) => b.language === "tsx").length).toBeGreaterThan(1);
  });

  test("few are skipped, each with its reason", () => {
    const skipped = blocks.filter((b) => b.marker?.kind === "skip");
    expect(skipped.length, skipped.map(name).join(", ")).toBeLessThanOrEqual(
      Math.max(2, blocks.length / 10),
    );
  });

  test.each(checked.map((b) => [name(b), b] as const))("%s compiles", (_, block) => {
    const found = problems.get(block) ?? [];
    const report = found.map((p) => `${p.at} TS${p.code}: ${p.message}`).join("\n");
    expect(report, `${name(block)}:\n${block.code}`).toBe("");
  });
});

describe("the block finder", () => {
  test("finds ts and typescript fences, indented ones too, with their lines and markers", () => {
    const text = [
      "# Title", // 1
      "```ts", // 2
      "const a = 1;", // 3
      "```", // 4
      "```sh", // 5
      "npm test", // 6
      "```", // 7
      "<!-- docs-check: skip (shows a type error on purpose) -->", // 8
      "", // 9
      "```typescript", // 10
      "const b = 2;", // 11
      "```", // 12
      "- a list item:", // 13
      "", // 14
      "  ```ts", // 15
      "  if (x) {", // 16
      "    y();", // 17
      "  }", // 18
      "  ```", // 19
    ].join("\n");
    expect(blocksOf("x.md", text)).toEqual([
      { file: "x.md", line: 2, code: "const a = 1;\n", language: "ts", marker: null },
      {
        file: "x.md",
        line: 10,
        code: "const b = 2;\n",
        language: "ts",
        marker: { kind: "skip", note: "shows a type error on purpose" },
      },
      { file: "x.md", line: 15, code: "if (x) {\n  y();\n}\n", language: "ts", marker: null },
    ]);
  });

  test("finds tsx fences as component code", () => {
    const text = ["```tsx", "const a = <p>hi</p>;", "```", "```jsx", "<p />", "```"].join("\n");
    expect(blocksOf("x.md", text)).toEqual([
      { file: "x.md", line: 1, code: "const a = <p>hi</p>;\n", language: "tsx", marker: null },
    ]);
  });

  test("refuses a marker without a reason, or one it does not know", () => {
    expect(() => blocksOf("x.md", "<!-- docs-check: skip -->\n```ts\n1\n```")).toThrow(
      "needs a (reason)",
    );
    expect(() => blocksOf("x.md", "<!-- docs-check: ignore (x) -->\n```ts\n1\n```")).toThrow(
      "unknown docs-check marker",
    );
  });

  test("a block that does not compile is reported at its Markdown line", () => {
    const [block] = blocksOf(
      "x.md",
      [
        "intro",
        "```ts",
        'import { Auth } from "@gatehousejs/core";',
        "",
        "const unused = Auth;",
        "missing();",
        "```",
      ].join("\n"),
    );
    const found = typecheck([block!]).get(block!) ?? [];
    expect(found.map((p) => [p.at, p.code])).toEqual([
      ["x.md:5:7", 6133], // 'unused' is declared but its value is never read
      ["x.md:6:1", 2304], // Cannot find name 'missing'
    ]);
  }, 120_000);

  test("a tsx block is checked as Solid component code, and its mistakes are reported", () => {
    const blocks = blocksOf(
      "x.md",
      [
        "```tsx",
        'import { createSignal } from "solid-js";',
        "",
        "export function Counter() {",
        "  const [count, setCount] = createSignal(0);",
        '  return <button type="button" onClick={() => setCount(count() + 1)}>{count()}</button>;',
        "}",
        "```",
        "```tsx",
        "export const Broken = () => <button onClick={42}>x</button>;",
        "```",
      ].join("\n"),
    );
    const found = typecheck(blocks);
    expect(found.get(blocks[0]!)).toEqual([]);
    expect(found.get(blocks[1]!)?.map((p) => p.code)).toEqual([2322]);
  }, 120_000);

  test("the root README is read as it is on disk", () => {
    const text = readFileSync(join(root, "README.md"), "utf8");
    expect(blocksOf("README.md", text)).toEqual(blocks.filter((b) => b.file === "README.md"));
  });
});
