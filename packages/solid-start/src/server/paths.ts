/**
 * Path matching for the middleware: one canonical form for request paths and patterns, chosen
 * so that every spelling the router would render as a protected page is seen as protected.
 *
 * The Solid router compares path segments case-insensitively and ignores empty segments, so
 * `/Admin` and `//admin` render `/admin`. The canonical form therefore decodes percent-escapes
 * (`/%61dmin`, `/admin%2Fx`), treats `\` as `/`, drops empty and `.` segments, resolves `..`
 * after decoding, and lowercases. When in doubt a path is matched as protected: the cost is a
 * session check, never an open page.
 */

/** Decodes percent-escapes; a malformed escape is kept as is, the others still decoded. */
function decodePath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        // Bytes that are no UTF-8: decode the ASCII ones, keep the rest escaped.
        return run.replace(/%([0-7][0-9a-f])/gi, (_, hex: string) =>
          String.fromCharCode(Number.parseInt(hex, 16)),
        );
      }
    });
  }
}

/** The canonical form of a path: `/`-joined lowercase segments, no empty, `.` or `..` ones. */
export function canonicalPath(pathname: string): string {
  const out: string[] = [];
  for (const segment of decodePath(pathname).toLowerCase().split(/[/\\]/)) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") out.pop();
    else out.push(segment);
  }
  return `/${out.join("/")}`;
}

/** A compiled protected-path pattern. */
export interface PathPattern {
  /** The canonical path of the pattern, without `/*`. */
  path: string;
  /** `"/admin/*"`: the path and everything under it; `"/account"`: the path only. */
  prefix: boolean;
}

/**
 * Compiles a pattern: `"/account"` is that path (a trailing slash on the request is ignored),
 * `"/admin/*"` is `/admin` and everything under it, `"/*"` is every path.
 */
export function compilePattern(pattern: string): PathPattern {
  if (typeof pattern !== "string" || !pattern.startsWith("/")) {
    throw new TypeError(`authMiddleware: a protected path must start with "/" (got ${pattern})`);
  }
  const prefix = pattern === "/*" || pattern.endsWith("/*");
  const body = prefix ? pattern.slice(0, -2) : pattern;
  if (body.includes("*")) {
    throw new TypeError(
      `authMiddleware: "*" may only end a protected path, as "/admin/*" (got ${pattern})`,
    );
  }
  return { path: canonicalPath(body), prefix };
}

/** Whether a canonical path matches a compiled pattern. */
export function matchesPattern(path: string, pattern: PathPattern): boolean {
  if (path === pattern.path) return true;
  if (!pattern.prefix) return false;
  return pattern.path === "/" || path.startsWith(`${pattern.path}/`);
}

/** Whether a canonical path is the prefix or under it (the prefix compiled with `/*`). */
export function underCanonical(path: string, base: string): boolean {
  return path === base || base === "/" || path.startsWith(`${base}/`);
}

/** Extensions of files a SolidStart app serves as static assets. */
const ASSET_EXTENSIONS = new Set([
  "js",
  "mjs",
  "cjs",
  "css",
  "map",
  "json",
  "webmanifest",
  "txt",
  "xml",
  "png",
  "jpg",
  "jpeg",
  "gif",
  "webp",
  "avif",
  "svg",
  "ico",
  "bmp",
  "woff",
  "woff2",
  "ttf",
  "otf",
  "eot",
  "wasm",
  "mp3",
  "mp4",
  "webm",
  "pdf",
]);

/**
 * Whether a canonical path is a static asset: the build output (`/_build/…`), server assets
 * and functions (`/_server`, `/_server/…`), or a file with an asset extension.
 */
export function isAssetPath(path: string): boolean {
  if (underCanonical(path, "/_build") || underCanonical(path, "/_server")) return true;
  const last = path.slice(path.lastIndexOf("/") + 1);
  const dot = last.lastIndexOf(".");
  return dot > 0 && ASSET_EXTENSIONS.has(last.slice(dot + 1));
}
