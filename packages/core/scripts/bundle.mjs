#!/usr/bin/env node
// `node scripts/bundle.mjs` (run by `npm run build`, after `tsc -b` has written the declarations):
// writes the package's JavaScript into dist/ as ES modules with code splitting. esbuild turns each
// TypeScript source into JavaScript; Rollup (both are the workspace's devDependencies) joins them.
//
// - One module per public export of package.json (`dist/index.js`, `dist/jwt.js`, one
//   `dist/providers/<id>.js` per module matched by `./providers/*`, …), at the path its `default`
//   condition names. The `.d.ts` files beside them are tsc's (tsconfig.build.json emits only
//   declarations), so `types` keeps matching `default`.
// - The code they share, and every dynamic `import()` of the sources, goes into
//   `dist/chunks/<module>-<hash>.js`: a lazy part stays a chunk of its own that loads on first use,
//   and each source module is in exactly one output file, so module-level state (the installed
//   features, the caches, the symbols, the error classes) exists once however many entries an app
//   imports.
// - Rollup rather than esbuild's own splitting, because of the files a cold start reads (every
//   one costs 0.5-1 ms): esbuild makes a chunk for every set of entries and lazy parts
//   that share a module, 30 files for core's first /session; Rollup knows that what a lazy part
//   shares with the module that loads it is loaded already, and the root's code is placed in two
//   chunks by hand (`rootChunks` below): 4 files.
// - An entry imported by another (the integration kit imports the package's root, Passkey imports
//   WebAuthn) stays an import of that entry's own file. What an entry declared with side effects
//   in package.json runs at its top level (the root installs the built-in features) stays in that
//   file: the build fails if one became a re-export of a chunk.
// - Every package import (dependencies, peers, `node:*`) stays an import; nothing is minified;
//   each output has a source map into ../src (which the package ships).
//
// Stale `.js` and `.js.map` files (an earlier build's chunks, or tsc's per-file output) are
// removed; files whose content did not change are left untouched.
//
//   node scripts/bundle.mjs [<package folder>]   (default: this package)
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const require = createRequire(join(repoRoot, "package.json"));
const esbuild = require("esbuild");
const { rollup } = require("rollup");

/** Where shared and lazy code goes, under dist/. */
const CHUNKS = "chunks";

/**
 * The entry points of a package: one per `exports` target with a `gatehouse-source` and a
 * `default` condition; a `*` target stands for every source file it matches directly in its
 * folder (not in sub-folders, which the package keeps private).
 */
export function entryPoints(pkgDir) {
  const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  const entries = [];
  for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
    if (target === null || typeof target !== "object") continue;
    const source = target["gatehouse-source"];
    const output = target.default;
    if (!source || !output) throw new Error(`${subpath}: no gatehouse-source or default target`);
    if (!output.startsWith("./dist/") || !output.endsWith(".js")) {
      throw new Error(`${subpath}: ${output} is not a .js file under ./dist/`);
    }
    const names = source.includes("*") ? matches(pkgDir, source) : [""];
    for (const name of names) {
      entries.push({
        subpath: subpath.replace("*", name),
        in: join(pkgDir, source.replace("*", name)),
        out: output.replace("*", name).slice("./dist/".length, -".js".length),
        types: target.types?.replace("*", name),
      });
    }
  }
  return entries;
}

/** What `*` stands for in a source pattern: the names of the matching files in its folder. */
function matches(pkgDir, pattern) {
  const star = pattern.indexOf("*");
  const folder = pattern.slice(0, pattern.lastIndexOf("/", star) + 1);
  const prefix = pattern.slice(folder.length, star);
  const suffix = pattern.slice(star + 1);
  if (suffix.includes("/")) throw new Error(`${pattern}: a * must stand for a file name`);
  return readdirSync(join(pkgDir, folder), { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.startsWith(prefix) && e.name.endsWith(suffix))
    .map((e) => e.name.slice(prefix.length, e.name.length - suffix.length))
    .filter((name) => name.length > 0)
    .sort();
}

/** The `./dist/…` files package.json declares with side effects. */
function withSideEffects(pkgDir) {
  const { sideEffects } = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  return Array.isArray(sideEffects) ? sideEffects.filter((f) => f.startsWith("./dist/")) : [];
}

/**
 * The Rollup plugin for the sources: a relative import finds its `.ts` file (the sources import
 * `./x.js`); one that finds another entry's source is left to the runtime, as that entry's output
 * file (Rollup writes it relative to the importing chunk); esbuild compiles each file.
 */
function sources(pkgDir, entries) {
  const dist = join(pkgDir, "dist");
  const entryOutput = new Map(entries.map((e) => [e.in, join(dist, `${e.out}.js`)]));
  const { compilerOptions = {} } = JSON.parse(
    readFileSync(join(repoRoot, "tsconfig.base.json"), "utf8"),
  );
  return {
    name: "gatehouse-sources",
    resolveId(source, importer) {
      if (!importer || !(source.startsWith("./") || source.startsWith("../"))) return null;
      const path = resolve(dirname(importer), source);
      const ts = path.endsWith(".js") ? `${path.slice(0, -".js".length)}.ts` : path;
      const found = existsSync(ts) ? ts : path;
      const output = entryOutput.get(found);
      return output === undefined ? found : { id: output, external: true };
    },
    async transform(code, id) {
      if (!id.endsWith(".ts")) return null;
      const result = await esbuild.transform(code, {
        loader: "ts",
        format: "esm",
        target: String(compilerOptions.target ?? "es2022").toLowerCase(),
        sourcemap: "external",
        sourcefile: id,
        tsconfigRaw: {
          // What decides the JavaScript tsc would emit (class fields, elided imports).
          compilerOptions: {
            target: compilerOptions.target,
            verbatimModuleSyntax: compilerOptions.verbatimModuleSyntax,
            useDefineForClassFields: compilerOptions.useDefineForClassFields,
          },
        },
      });
      return { code: result.code, map: result.map };
    },
  };
}

/**
 * Rollup's `manualChunks`, for the entries package.json declares with side effects (core's root).
 * Everything such an entry loads (statically) goes into two chunks: what only it uses
 * (`<entry>-only`) and what it shares with other entries (`<entry>-shared`). Left to Rollup,
 * the code only the entry uses would share a chunk with the entry's own module, which lazy chunks
 * import from: the entry's file would become a re-export of that chunk, its top-level code (the
 * side effect) moved out of it. Two chunks rather than one per set of entries: a cold start of
 * the root reads 3 files instead of 13, and adding an entry does not split them further; the
 * price is that an entry used without the root (`./errors`, `./jwt`, `./adapters`) loads the
 * whole shared chunk. Rollup adds a placed module's unplaced dependencies to its chunk, so
 * every module the entry reaches is placed here; the rest (lazy parts, the other entries' own
 * code) is Rollup's to place.
 */
function rootChunks(entries, sideEffectEntries) {
  let placed;
  return (id, { getModuleInfo }) => {
    if (!placed) {
      placed = new Map();
      const reach = (from) => {
        const seen = new Set();
        const stack = [from];
        while (stack.length > 0) {
          const next = stack.pop();
          if (seen.has(next)) continue;
          const info = getModuleInfo(next);
          if (!info || info.isExternal) continue;
          seen.add(next);
          stack.push(...info.importedIds);
        }
        return seen;
      };
      const reachedBy = new Map();
      for (const entry of entries) {
        for (const module of reach(entry.in)) {
          reachedBy.set(module, (reachedBy.get(module) ?? 0) + 1);
        }
      }
      for (const entry of sideEffectEntries) {
        const name = entry.out.replaceAll("/", "-");
        for (const module of reach(entry.in)) {
          if (module === entry.in || placed.has(module)) continue;
          placed.set(module, reachedBy.get(module) === 1 ? `${name}-only` : `${name}-shared`);
        }
      }
    }
    return placed.get(id);
  };
}

/**
 * Rollup writes an import of another entry's file (an absolute external) as a path out of dist/
 * and back in (`../../dist/index.js` from `dist/integration/`): the same file, written here as
 * the shortest relative path (`../index.js`). Only the quoted specifier of an import line changes,
 * which no source mapping follows.
 */
function shortestImports(file, code) {
  return code.replace(
    /^((?:import|export)\b[^'"\n]*?['"])(\.\.?\/[^'"]+)(['"];?)$/gm,
    (_line, before, specifier, after) => {
      let shortest = relative(dirname(file), resolve(dirname(file), specifier))
        .split(sep)
        .join("/");
      if (!shortest.startsWith(".")) shortest = `./${shortest}`;
      return `${before}${shortest}${after}`;
    },
  );
}

/** Every file under `dir` whose name ends with one of `suffixes`, as absolute paths. */
function filesUnder(dir, suffixes) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && suffixes.some((s) => e.name.endsWith(s)))
    .map((e) => join(e.parentPath, e.name));
}

/**
 * Bundles the package at `pkgDir` into its dist/; returns the files written or kept (absolute
 * paths), the entries and Rollup's output chunks.
 */
export async function bundlePackage(pkgDir) {
  pkgDir = resolve(pkgDir);
  const dist = join(pkgDir, "dist");
  const entries = entryPoints(pkgDir);
  const sideEffectFiles = withSideEffects(pkgDir);
  const sideEffectEntries = new Set(
    entries.filter((e) => sideEffectFiles.includes(`./dist/${e.out}.js`)),
  );
  const warnings = [];
  const bundle = await rollup({
    input: Object.fromEntries(entries.map((e) => [e.out, e.in])),
    // Dependencies, peers and node:* are the app's to resolve, as they were with tsc's output.
    external: (id) => !id.startsWith(".") && !isAbsolute(id),
    plugins: [sources(pkgDir, entries)],
    preserveEntrySignatures: "strict",
    // An entry of types only (./types) is an empty module, as tsc wrote it.
    onwarn: (warning) => warning.code === "EMPTY_BUNDLE" || warnings.push(warning),
  });
  let output;
  try {
    ({ output } = await bundle.generate({
      dir: dist,
      format: "es",
      entryFileNames: "[name].js",
      chunkFileNames: `${CHUNKS}/[name]-[hash].js`,
      sourcemap: true,
      // The maps point into ../src, which the package ships (as tsc's maps did).
      sourcemapExcludeSources: true,
      manualChunks: rootChunks(entries, sideEffectEntries),
    }));
  } finally {
    await bundle.close();
  }
  if (warnings.length > 0) {
    throw new Error(
      `Rollup warned:\n${warnings.map((w) => `  ${w.code}: ${w.message}`).join("\n")}`,
    );
  }

  const chunks = output.filter((item) => item.type === "chunk");
  // An entry with side effects must hold its own module, not re-export it from a chunk that
  // package.json declares free of them.
  for (const file of sideEffectFiles) {
    const chunk = chunks.find((c) => `./dist/${c.fileName}` === file);
    if (chunk && !chunk.moduleIds.includes(chunk.facadeModuleId)) {
      throw new Error(`${file} re-exports its module from a chunk: its side effects moved`);
    }
  }

  const written = new Set();
  const write = (file, text) => {
    written.add(file);
    if (existsSync(file) && readFileSync(file, "utf8") === text) return;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  };
  // Rollup hands each source map back as an asset beside its chunk, which names it.
  for (const item of output) {
    const file = join(dist, item.fileName);
    if (item.type === "chunk") write(file, shortestImports(file, item.code));
    else
      write(
        file,
        typeof item.source === "string" ? item.source : Buffer.from(item.source).toString(),
      );
  }
  for (const stale of filesUnder(dist, [".js", ".js.map"])) {
    if (!written.has(stale)) rmSync(stale, { force: true });
  }
  // tsc writes the declarations: an export whose types are missing is a broken package.
  for (const entry of entries) {
    if (entry.types && !existsSync(join(pkgDir, entry.types))) {
      throw new Error(`${entry.subpath}: ${entry.types} is missing (run tsc -b first)`);
    }
  }
  return { files: [...written], entries, chunks };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const pkgDir = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), ".."));
  const { entries, chunks } = await bundlePackage(pkgDir);
  const shared = chunks.filter((c) => !c.isEntry).length;
  console.log(
    `${relative(repoRoot, pkgDir)}: ${entries.length} entries and ${shared} chunks in dist/`,
  );
}
