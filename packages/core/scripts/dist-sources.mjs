// Which source modules a built file holds. The bundled dist/ (scripts/bundle.mjs) puts many
// source modules in one file, named by a hash, so a test or a bench that asks "did this process
// load the OAuth code?" asks it of the sources: the `sources` of the file's source map.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The source modules of a file of a package's dist/ (a path or a `file:` URL), as paths relative
 * to that package's folder (`src/lib/auth.ts`). Throws when the file has no source map.
 */
export function sourcesOf(file) {
  const path = file.startsWith("file:") ? fileURLToPath(file) : file;
  const at = path.lastIndexOf(`${sep}dist${sep}`);
  if (at < 0) throw new Error(`${path} is not in a dist/ folder`);
  const pkgDir = path.slice(0, at);
  const map = `${path}.map`;
  if (!existsSync(map)) throw new Error(`${path} has no source map`);
  const { sources, sourceRoot = "" } = JSON.parse(readFileSync(map, "utf8"));
  return sources.map((source) =>
    relative(pkgDir, resolve(dirname(path), sourceRoot, source))
      .split(sep)
      .join("/"),
  );
}

/**
 * The files of `urls` (module URLs, as a loader hook lists them) that are in `pkgDir`'s dist/,
 * each with its source modules.
 */
export function builtModules(urls, pkgDir) {
  const dist = join(resolve(pkgDir), "dist") + sep;
  return urls
    .filter((url) => url.startsWith("file:") && fileURLToPath(url).startsWith(dist))
    .map((url) => ({ url, sources: sourcesOf(url) }));
}
