/**
 * The package as published: its exports map, the declarations it emits (no `any`), and a client
 * entry that loads no server code.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { build } from "esbuild";
import ts from "typescript";
import { beforeAll, describe, expect, test } from "vitest";

const pkgDir = resolve(import.meta.dirname, "..");
const srcDir = join(pkgDir, "src");
const OUT = "/virtual-out";

type Target = { "gatehouse-source": string; types: string; default: string };
const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as {
  exports: Record<string, Target | string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  sideEffects: boolean;
};

/** The files a `gatehouse-source` target names: itself, or every file its `*` matches. */
function sourcesOf(target: Target): string[] {
  const source = target["gatehouse-source"];
  if (!source.includes("*")) return [join(pkgDir, source)];
  // Patterns here are `<folder>/*<suffix>`: every file of the folder with that suffix.
  const [folder = "", after = ""] = source.split("*");
  const dir = join(pkgDir, folder);
  return readdirSync(dir)
    .filter((name) => name.endsWith(after))
    .map((name) => join(dir, name));
}

/** The emitted files (declarations and JavaScript, comments removed), by path under src. */
const emitted = new Map<string, string>();

beforeAll(() => {
  const roots = Object.values(pkg.exports)
    .filter((t): t is Target => typeof t === "object")
    .flatMap(sourcesOf);
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
    rootDir: srcDir,
    outDir: OUT,
  };
  const host = ts.createCompilerHost(options);
  host.writeFile = (name, text) => {
    emitted.set(relative(OUT, name).split("\\").join("/"), text);
  };
  const program = ts.createProgram(roots, options, host);
  const result = program.emit();
  const errors = ts.getPreEmitDiagnostics(program).concat(result.diagnostics);
  if (errors.length > 0) {
    throw new Error(ts.formatDiagnostics(errors, host));
  }
}, 120_000);

describe("the exports map", () => {
  test("every entry points at its source, its declarations and its JavaScript", () => {
    for (const [name, target] of Object.entries(pkg.exports)) {
      if (typeof target === "string") continue;
      const source = target["gatehouse-source"];
      const files = sourcesOf(target);
      expect(files.length, `${name} → ${source}`).toBeGreaterThan(0);
      for (const file of files) expect(existsSync(file), `${name} → ${file}`).toBe(true);
      const base = source.replace(/^\.\/src\//, "./dist/").replace(/\.ts$/, "");
      expect(target.types, name).toBe(`${base}.d.ts`);
      expect(target.default, name).toBe(`${base}.js`);
    }
  });

  test("the providers are one pattern entry, beside the root, client and adapters entries", () => {
    expect(Object.keys(pkg.exports)).toEqual([
      ".",
      "./client",
      "./adapters",
      "./providers/*",
      "./package.json",
    ]);
    expect(pkg.exports["./providers/*"]).toEqual({
      "gatehouse-source": "./src/providers/*.ts",
      types: "./dist/providers/*.d.ts",
      default: "./dist/providers/*.js",
    });
  });

  test("peers: solid-js required, the router and SolidStart optional; no side effects", () => {
    expect(Object.keys(pkg.peerDependencies).sort()).toEqual([
      "@gatehousejs/core",
      "@solidjs/router",
      "@solidjs/start",
      "solid-js",
    ]);
    expect(pkg.peerDependenciesMeta["@solidjs/router"]?.optional).toBe(true);
    expect(pkg.peerDependenciesMeta["@solidjs/start"]?.optional).toBe(true);
    expect(pkg.peerDependenciesMeta["solid-js"]).toBeUndefined();
    expect(pkg.sideEffects).toBe(false);
  });
});

describe("the emitted package", () => {
  test("no declaration says any", () => {
    const declarations = [...emitted].filter(([name]) => name.endsWith(".d.ts"));
    expect(declarations.length).toBeGreaterThan(10);
    for (const [name, text] of declarations) {
      expect(text, name).not.toMatch(/\bany\b/);
    }
  });

  test("the client entry loads solid-js, core's client and its own modules; @simplewebauthn/browser only on demand", () => {
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = emitted.get(file);
      if (text === undefined) throw new Error(`${file} was not emitted`);
      for (const [, specifier = ""] of text.matchAll(/(?:from|import)\s*"([^"]+)"/g)) {
        if (specifier.startsWith(".")) {
          visit(join(dirname(file), specifier).split("\\").join("/"));
        } else {
          expect(
            ["solid-js", "solid-js/web", "@gatehousejs/core/client"],
            `${file} imports ${specifier}`,
          ).toContain(specifier);
        }
      }
      // Dynamic imports: the passkey helpers load the WebAuthn browser library when called.
      for (const [, specifier = ""] of text.matchAll(/import\(\s*"([^"]+)"\s*\)/g)) {
        expect(`${file} → ${specifier}`).toBe("client/passkey.js → @simplewebauthn/browser");
      }
    };
    visit("client/index.js");
    expect([...seen].sort()).toEqual(["client/index.js", "client/passkey.js", "client/session.js"]);
    expect(emitted.get("client/passkey.js")).toMatch(/import\("@simplewebauthn\/browser"\)/);
  });

  test("bundled for the browser, the client holds no server module of core or of this package", async () => {
    const result = await build({
      entryPoints: ["@gatehousejs/solid-start/client"],
      absWorkingDir: resolve(pkgDir, "../.."),
      bundle: true,
      write: false,
      metafile: true,
      platform: "browser",
      format: "esm",
      conditions: ["gatehouse-source"],
      external: ["solid-js", "solid-js/web"],
      logLevel: "silent",
    });
    const inputs = Object.keys(result.metafile.inputs);
    const ours = inputs.filter((input) => !input.includes("node_modules/"));
    expect(ours.length).toBeGreaterThan(3);
    for (const input of ours) {
      expect(input, input).toMatch(/(^|\/)packages\/(solid-start|core)\/src\/client\//);
    }
    // The only package bundled in: the WebAuthn browser library, behind its dynamic import.
    const packages = new Set(
      inputs
        .filter((input) => input.includes("node_modules/"))
        .map((input) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1]),
    );
    expect([...packages]).toEqual(["@simplewebauthn/browser"]);
    expect(inputs.some((input) => input.startsWith("node:"))).toBe(false);
  });

  test("the server entry loads solid-js/web only when a session is read in a request", () => {
    for (const [name, text] of emitted) {
      if (!name.endsWith(".js") || name.startsWith("client/")) continue;
      expect(text, name).not.toMatch(/from\s*"solid-js\/web"/);
    }
    expect(emitted.get("server/request-event.js")).toMatch(/import\("solid-js\/web"\)/);
  });

  test("the server entry does not load the router (its browser build breaks in Node)", () => {
    for (const [name, text] of emitted) {
      if (name.endsWith(".js")) expect(text, name).not.toMatch(/@solidjs\/(router|start)/);
    }
  });
});
