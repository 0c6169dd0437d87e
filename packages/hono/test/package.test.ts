/**
 * The package as published: its exports map, and what its built files import and declare.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { beforeAll, describe, expect, test } from "vitest";

const pkgDir = resolve(import.meta.dirname, "..");
const OUT = "/virtual-out";

type Target = { "gatehouse-source": string; types: string; default: string };
const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as {
  exports: Record<string, Target | string>;
  peerDependencies: Record<string, string>;
  dependencies?: Record<string, string>;
};

/** The emitted files, declarations and JavaScript, by path under src. */
const emitted = new Map<string, string>();

beforeAll(() => {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    customConditions: ["gatehouse-source"],
    strict: true,
    skipLibCheck: true,
    declaration: true,
    removeComments: true,
    verbatimModuleSyntax: true,
    types: ["node"],
    rootDir: join(pkgDir, "src"),
    outDir: OUT,
  };
  const host = ts.createCompilerHost(options);
  host.writeFile = (name, text) => {
    emitted.set(relative(OUT, name).split("\\").join("/"), text);
  };
  const program = ts.createProgram([join(pkgDir, "src/index.ts")], options, host);
  // Core is compiled from its sources too, and checked by its own tests: only ours are held here.
  const ours = program
    .getSourceFiles()
    .filter((file) => !relative(join(pkgDir, "src"), file.fileName).startsWith(".."));
  const errors = ours.flatMap((file) => [
    ...program.getSyntacticDiagnostics(file),
    ...program.getSemanticDiagnostics(file),
    ...program.emit(file).diagnostics,
  ]);
  if (errors.length > 0) throw new Error(ts.formatDiagnostics(errors, host));
}, 120_000);

/** The module specifiers a file imports or re-exports. */
function importsOf(text: string): string[] {
  return [...text.matchAll(/(?:from|import)\s*["']([^"']+)["']/g)].map((m) => m[1] ?? "");
}

describe("the published package", () => {
  test("its one entry points at its source, declarations and JavaScript", () => {
    expect(Object.keys(pkg.exports).sort()).toEqual([".", "./package.json"]);
    const entry = pkg.exports["."] as Target;
    expect(existsSync(join(pkgDir, entry["gatehouse-source"]))).toBe(true);
    expect(entry).toMatchObject({ types: "./dist/index.d.ts", default: "./dist/index.js" });
    expect(emitted.has("index.js") && emitted.has("index.d.ts")).toBe(true);
  });

  test("its JavaScript loads only core and Hono: no runtime adapter, nothing else", () => {
    const external = [...emitted]
      .filter(([name]) => name.endsWith(".js"))
      .flatMap(([, text]) => importsOf(text))
      .filter((specifier) => !specifier.startsWith("."));
    expect(external.length).toBeGreaterThan(0);
    for (const specifier of external) {
      expect(specifier).toMatch(/^(@gatehousejs\/core\/[a-z]+|hono\/factory)$/);
    }
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(Object.keys(pkg.peerDependencies).sort()).toEqual(["@gatehousejs/core", "hono"]);
  });

  test("its declarations use no any", () => {
    for (const [name, text] of emitted) {
      if (!name.endsWith(".d.ts")) continue;
      expect(text, name).not.toMatch(/\bany\b/);
    }
  });
});
