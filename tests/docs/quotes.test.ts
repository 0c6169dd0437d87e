/**
 * A documentation block marked `<!-- docs-check: quote (path) -->` shows part of a source file:
 * it must appear in that file word for word, so the page cannot drift from the code it explains
 * (the file itself is compiled and tested with the rest).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { blocksOf, documentationBlocks, root } from "./markdown.js";

const quotes = documentationBlocks().filter((b) => b.marker?.kind === "quote");

describe("quoted source in the documentation", () => {
  test("docs/architecture.md quotes the code it walks through", () => {
    expect(quotes.filter((b) => b.file === "docs/architecture.md").length).toBeGreaterThan(2);
  });

  test.each(quotes.map((b) => [`${b.file}:${b.line}`, b] as const))("%s", (_, block) => {
    const path = join(root, block.marker!.note);
    expect(existsSync(path), `${block.marker!.note} does not exist`).toBe(true);
    const source = readFileSync(path, "utf8");
    expect(source.includes(block.code.trimEnd()), `not found in ${block.marker!.note}`).toBe(true);
  });

  test("a quote that drifted from its file is caught", () => {
    const [block] = blocksOf(
      "x.md",
      "<!-- docs-check: quote (packages/core/src/builtins.ts) -->\n```ts\nexport const nothing = 1;\n```\n",
    );
    const source = readFileSync(join(root, block!.marker!.note), "utf8");
    expect(source.includes(block!.code.trimEnd())).toBe(false);
  });
});
