/**
 * Path matching for an integration's middleware. A request path is read in two spellings, and
 * the middleware checks the session when either falls under a protected pattern:
 *
 * - the router's ({@link routerPath}): what a router such as `@solidjs/router` matches. It
 *   splits the pathname of the request URL (already resolved by the URL parser: `/a/../b`,
 *   `/a/%2e%2e/b`, `\` as `/`) on `/` only, drops empty segments and compares static segments
 *   case-insensitively. It does not decode: `/admin/..%2Fpublic` is the route `/admin/:id` with
 *   the id `..%2Fpublic`.
 * - the decoded one ({@link canonicalPath}): percent-escapes decoded (`/%61dmin`,
 *   `/admin%2Fx`), `\` as `/`, empty and `.` segments dropped, `..` resolved after decoding,
 *   lowercased. This is how a server or proxy that decodes before routing would read it.
 *
 * Reading only the decoded spelling let `/admin/..%2Fpublic` through as `/public` while the
 * router rendered the protected page; reading only the router's would miss a layer that
 * decodes. When in doubt a path is matched as protected: the cost is a session check, never an
 * open page.
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

/**
 * The path as the Solid router matches it: the URL's pathname split on `/` with empty segments
 * dropped, not decoded, lowercased (patterns are lowercase; the router compares static
 * segments case-insensitively).
 */
export function routerPath(pathname: string): string {
  return `/${pathname.split("/").filter(Boolean).join("/").toLowerCase()}`;
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
    throw new TypeError(`A protected path must start with "/" (got ${pattern})`);
  }
  const prefix = pattern === "/*" || pattern.endsWith("/*");
  const body = prefix ? pattern.slice(0, -2) : pattern;
  if (body.includes("*")) {
    throw new TypeError(`"*" may only end a protected path, as "/admin/*" (got ${pattern})`);
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

/** Extensions of files an app's build serves as static assets. */
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
 * Whether a path (in either spelling) is a static asset: under one of the framework's `roots`
 * (SolidStart's build output `/_build/…`, its server assets and functions `/_server…`), or a
 * file with an asset extension whose name holds no percent-escape (built files never do;
 * `..%2Fx.css` is a route parameter, not a file).
 */
export function isAssetPath(path: string, roots: readonly string[]): boolean {
  if (roots.some((root) => underCanonical(path, root))) return true;
  const last = path.slice(path.lastIndexOf("/") + 1);
  if (last.includes("%")) return false;
  const dot = last.lastIndexOf(".");
  return dot > 0 && ASSET_EXTENSIONS.has(last.slice(dot + 1));
}
