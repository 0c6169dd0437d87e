/**
 * The TypeScript blocks of the documentation: every ```ts / ```typescript / ```tsx fence in the root
 * README, the package READMEs and docs/, found when the tests run (so a page added later is
 * checked too), each with the line it starts on and the marker comment written before it.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";

/** The repository root. */
export const root = resolve(import.meta.dirname, "../..");

/**
 * A marker comment right before a fence: `<!-- docs-check: skip (why) -->`, `run (what)`, or
 * `quote (path)` for a block that shows part of a source file, word for word (tests/docs/quotes.test.ts).
 */
export interface Marker {
  kind: "skip" | "run" | "quote";
  /** The text in parentheses: why a block is skipped, what runs it, or the file it quotes. */
  note: string;
}

/** One fenced TypeScript block. */
export interface Block {
  /** The Markdown file, relative to the repository root, with `/` separators. */
  file: string;
  /** The 1-based line of the opening fence. */
  line: number;
  /** The block's code, with the fence's indentation removed. */
  code: string;
  /** `tsx` for component code (JSX), `ts` for the rest. */
  language: "ts" | "tsx";
  marker: Marker | null;
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/;
const MARKER = /^\s*<!--\s*docs-check:\s*(\S+)\s*(?:\((.*)\))?\s*-->\s*$/;
const LANGUAGES = new Map<string, Block["language"]>([
  ["ts", "ts"],
  ["typescript", "ts"],
  ["tsx", "tsx"],
]);

/** Every Markdown file whose TypeScript blocks are checked, sorted. */
export function documentationFiles(): string[] {
  const files = [join(root, "README.md")];
  const packages = join(root, "packages");
  for (const name of readdirSync(packages)) {
    const readme = join(packages, name, "README.md");
    if (existsSync(readme)) files.push(readme);
  }
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".md")) files.push(path);
    }
  };
  if (existsSync(join(root, "docs"))) walk(join(root, "docs"));
  return files.map((f) => relative(root, f).split("\\").join("/")).sort();
}

/** Reads a marker comment; throws on a `docs-check` comment it does not understand. */
function markerOf(text: string, where: string): Marker | null {
  const match = MARKER.exec(text);
  if (!match) {
    if (/docs-check/.test(text)) throw new Error(`${where}: malformed docs-check comment`);
    return null;
  }
  const [, kind, note = ""] = match;
  if (kind !== "skip" && kind !== "run" && kind !== "quote") {
    throw new Error(`${where}: unknown docs-check marker "${kind}" (use skip, run or quote)`);
  }
  if (!note.trim()) throw new Error(`${where}: a docs-check ${kind} marker needs a (reason)`);
  return { kind, note: note.trim() };
}

/** The TypeScript blocks of one Markdown text. */
export function blocksOf(file: string, text: string): Block[] {
  const lines = text.split(/\r?\n/);
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] ?? "");
    if (!open) continue;
    const [, indent = "", fence = "", language = ""] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j] ?? "";
      const trimmed = line.trim();
      if (trimmed.startsWith(fence[0]!.repeat(fence.length)) && /^(`+|~+)$/.test(trimmed)) break;
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line.trimStart());
    }
    const kind = LANGUAGES.get(language.toLowerCase());
    if (kind) {
      let k = i - 1;
      while (k >= 0 && !lines[k]?.trim()) k--;
      const marker = k >= 0 ? markerOf(lines[k] ?? "", `${file}:${k + 1}`) : null;
      blocks.push({ file, line: i + 1, code: `${body.join("\n")}\n`, language: kind, marker });
    }
    i = j;
  }
  return blocks;
}

/** Every TypeScript block of every documentation file. */
export function documentationBlocks(): Block[] {
  return documentationFiles().flatMap((file) =>
    blocksOf(file, readFileSync(join(root, file), "utf8")),
  );
}
