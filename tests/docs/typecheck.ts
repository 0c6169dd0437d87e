/**
 * Type-checks documentation blocks with the TypeScript compiler API, as if each were a module
 * of an app inside this repository: the repository's compiler options (strict, NodeNext, ESM)
 * plus `noUnusedLocals`, and package imports such as `@gatehousejs/core` resolved to the workspace
 * sources. `tsx` blocks are component code, compiled as a SolidStart app compiles it (JSX
 * preserved for the Solid compiler, types from `solid-js`). Blocks are never written to disk: the compiler reads them from memory, at paths in
 * tests/docs/.snippets/ so that module resolution starts inside the repository.
 */
import { join } from "node:path";
import ts from "typescript";
import { type Block, root } from "./markdown.js";

/** One compiler message, placed in the Markdown file. */
export interface Problem {
  /** `file:line:column` in the Markdown file. */
  at: string;
  code: number;
  message: string;
}

function compilerOptions(): ts.CompilerOptions {
  const configPath = join(root, "tsconfig.json");
  const { config, error } = ts.readConfigFile(configPath, ts.sys.readFile);
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, "\n"));
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, root, undefined, configPath);
  return {
    ...parsed.options,
    noEmit: true,
    strict: true,
    noUnusedLocals: true,
    // Every block is a module of its own, even one without an import.
    moduleDetection: ts.ModuleDetectionKind.Force,
    // Only .tsx blocks contain JSX: Solid's, left for its compiler.
    jsx: ts.JsxEmit.Preserve,
    jsxImportSource: "solid-js",
  };
}

const SNIPPETS = join(root, "tests/docs/.snippets");

/** Where a block lives for the compiler. */
export function snippetPath(block: Block): string {
  const name = `${block.file.replace(/[^A-Za-z0-9]+/g, "_")}_L${block.line}`;
  return join(SNIPPETS, `${name}.${block.language}`);
}

/** Blocks that augment a module or the global scope: those get a program of their own. */
const augments = (block: Block) => /\bdeclare\s+(module|global)\b/.test(block.code);

/**
 * Type-checks the blocks and returns the problems of each, keyed by block. Blocks share one
 * program, except those that augment a module (`declare module "…"`), which would change the
 * types every other block sees: each of those is checked alone.
 */
export function typecheck(blocks: readonly Block[]): Map<Block, Problem[]> {
  const options = compilerOptions();
  const virtual = new Map(blocks.map((b) => [snippetPath(b), b]));
  const host = ts.createCompilerHost(options, true);
  // Parsed library and workspace files, shared by every program.
  const cache = new Map<string, ts.SourceFile | undefined>();
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (name) => virtual.has(name) || fileExists.call(host, name);
  host.readFile = (name) => virtual.get(name)?.code ?? readFile.call(host, name);
  host.getSourceFile = (name, language, onError, create) => {
    const block = virtual.get(name);
    if (block) return ts.createSourceFile(name, block.code, language, true);
    if (!cache.has(name))
      cache.set(name, getSourceFile.call(host, name, language, onError, create));
    return cache.get(name);
  };

  const groups: Block[][] = [
    blocks.filter((b) => !augments(b)),
    ...blocks.filter(augments).map((b) => [b]),
  ];
  const results = new Map<Block, Problem[]>();
  let previous: ts.Program | undefined;
  for (const group of groups) {
    if (group.length === 0) continue;
    const program = ts.createProgram(group.map(snippetPath), options, host, previous);
    previous = program;
    const global = program.getOptionsDiagnostics().concat(program.getGlobalDiagnostics());
    for (const block of group) {
      const file = program.getSourceFile(snippetPath(block));
      if (!file) throw new Error(`${block.file}:${block.line}: the compiler lost this block`);
      const diagnostics = [
        ...global,
        ...program.getSyntacticDiagnostics(file),
        ...program.getSemanticDiagnostics(file),
      ];
      results.set(
        block,
        diagnostics.map((d) => problemOf(block, d)),
      );
    }
  }
  return results;
}

function problemOf(block: Block, diagnostic: ts.Diagnostic): Problem {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
  let at = `${block.file}:${block.line}`;
  if (diagnostic.file && diagnostic.start !== undefined) {
    const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    // Line 0 of the block is the line after the opening fence.
    at = `${block.file}:${block.line + 1 + line}:${character + 1}`;
  }
  return { at, code: diagnostic.code, message };
}
