/**
 * Type tests, run with the TypeScript compiler API: the files in test/types/ and the TypeScript
 * blocks of docs/typescript.md, each compiled as a program of its own (a module augmentation
 * changes the types of the whole program it is in, so none shares one; the root tsconfig.json
 * excludes test/types/ for the same reason).
 *
 * Each `// @ts-expect-error TS<code> why` must name the error it expects. The test compiles the
 * file with those directives disarmed and checks that every error is on a line after one of
 * them, with the code it names, and that each of them has its error: an expectation cannot pass
 * by an unrelated error, or by none.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, test } from "vitest";

const root = resolve(import.meta.dirname, "../../..");
const fixtures = join(root, "packages/core/test/types");
const guide = join(root, "docs/typescript.md");

function compilerOptions(): ts.CompilerOptions {
  const path = join(root, "tsconfig.json");
  const { config, error } = ts.readConfigFile(path, ts.sys.readFile);
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, "\n"));
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root, undefined, path);
  return {
    ...options,
    noEmit: true,
    noUnusedLocals: true,
    moduleDetection: ts.ModuleDetectionKind.Force,
  };
}

const options = compilerOptions();
const host = ts.createCompilerHost(options, true);
const virtual = new Map<string, string>();
const parsed = new Map<string, ts.SourceFile | undefined>();
{
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (name) => virtual.has(name) || fileExists.call(host, name);
  host.readFile = (name) => virtual.get(name) ?? readFile.call(host, name);
  host.getSourceFile = (name, language, onError, create) => {
    const text = virtual.get(name);
    if (text !== undefined) return ts.createSourceFile(name, text, language, true);
    // Library and workspace files are parsed once and shared by every program.
    if (!parsed.has(name))
      parsed.set(name, getSourceFile.call(host, name, language, onError, create));
    return parsed.get(name);
  };
}
let previous: ts.Program | undefined;

/** "declared but never used" and its variants. */
const UNUSED = new Set([6133, 6192, 6196, 6198]);

const DIRECTIVE = /\/\/ @ts-expect-error\b(.*)$/;

interface Outcome {
  /** `line: TS<code>` for each error the directives expect (1-based lines). */
  expected: string[];
  /** `line: TS<code>` for each error the compiler reports with the directives disarmed. */
  found: string[];
  /** The full messages, to read when the two differ. */
  messages: string[];
}

/** Compiles `code` as the module at `path`, with every `@ts-expect-error` disarmed. */
function check(path: string, code: string): Outcome {
  const expected: string[] = [];
  const lines = code.split("\n").map((line, i) => {
    const directive = DIRECTIVE.exec(line);
    if (!directive) return line;
    const named = /^\s+TS(\d+)\b/.exec(directive[1] ?? "");
    expected.push(`${i + 2}: TS${named ? named[1] : "? (name the expected error code)"}`);
    return line.replace("@ts-expect-error", "expected error");
  });
  virtual.set(path, lines.join("\n"));
  const program = ts.createProgram([path], options, host, previous);
  previous = program;
  const file = program.getSourceFile(path)!;
  // The fixture itself, and Gatehouse's public type declarations under its augmentations.
  const declarations = program
    .getSourceFiles()
    .filter((f) => f.fileName.includes("/packages/core/src/lib/types/"));
  const diagnostics = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...program.getSyntacticDiagnostics(file),
    ...program.getSemanticDiagnostics(file),
    // Unused locals there are the linter's business, not this test's.
    ...declarations
      .flatMap((f) => program.getSemanticDiagnostics(f))
      .filter((d) => !UNUSED.has(d.code)),
  ];
  const found: string[] = [];
  const messages: string[] = [];
  for (const d of diagnostics) {
    const text = ts.flattenDiagnosticMessageText(d.messageText, "\n");
    const at =
      d.file && d.start !== undefined
        ? `${d.file === file ? "" : `${d.file.fileName}:`}${d.file.getLineAndCharacterOfPosition(d.start).line + 1}`
        : "global";
    found.push(`${at}: TS${d.code}`);
    messages.push(`${at}: TS${d.code} ${text}`);
  }
  return {
    expected: [...new Set(expected)].sort(),
    found: [...new Set(found)].sort(),
    messages,
  };
}

/** The ```ts blocks of a Markdown file, with the line each starts on. */
function blocks(markdown: string): { line: number; code: string }[] {
  const out: { line: number; code: string }[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(ts|typescript)\s*$/.test(lines[i]!)) continue;
    const start = i + 1;
    while (i + 1 < lines.length && !/^```\s*$/.test(lines[i + 1]!)) i++;
    out.push({ line: start + 1, code: lines.slice(start, i + 1).join("\n") });
    i++;
  }
  return out;
}

const files = readdirSync(fixtures).filter((name) => name.endsWith(".ts"));
const guideBlocks = blocks(readFileSync(guide, "utf8"));

describe("types", () => {
  test("the fixtures are there", () => {
    expect(files).toEqual(expect.arrayContaining(["augmentation.ts", "session-callback.ts"]));
    expect(guideBlocks.length).toBeGreaterThanOrEqual(3);
  });

  test.each(files)(
    "test/types/%s: every expected error, and nothing else",
    (name) => {
      const path = join(fixtures, name);
      const { expected, found, messages } = check(path, readFileSync(path, "utf8"));
      expect(found, messages.join("\n")).toEqual(expected);
    },
    60_000,
  );

  test.each(guideBlocks.map((b) => [b.line, b] as const))(
    "docs/typescript.md, the block on line %i compiles as printed",
    (line, block) => {
      const path = join(root, "docs", `.typescript.md-L${line}.ts`);
      const { expected, found, messages } = check(path, block.code);
      expect(found, messages.join("\n")).toEqual(expected);
    },
    60_000,
  );
});
