/**
 * `node bench/edge-bundle.mjs`: how much code a Workers app ships with either library.
 *
 * The same minimal app is written twice, once on `@gatehousejs/core` (the built `dist/`, resolved
 * by package name as users get it) and once on `@auth/core`: one Credentials provider, JWT
 * sessions (the default without an adapter), basePath "/auth", and a module worker's fetch
 * handler (`export default { fetch: (req) => handler(req) }`). esbuild bundles each the way a
 * Workers build does: one ESM file, `platform: "neutral"` with the "worker" and "browser"
 * conditions, `process.env.NODE_ENV` set to "production", minified and not. The minified size is
 * the figure with a target: Gatehouse at most Auth.js's. The gzip size (what Workers counts against
 * its script limit) is printed for information.
 *
 * Which packages fill each bundle comes from esbuild's metafile (bytes each input contributes to
 * the minified output). Gatehouse's own share is split by folder in a third build of its app from
 * core's sources (the "gatehouse-source" condition): a dist/ that is itself bundled into chunks
 * keeps no folders, and a dist/ compiled file by file keeps the same ones as src/.
 *
 * Checks, else exit 1: both bundles build with no `node:` import left to the runtime (a Worker
 * without `nodejs_compat` has none), and both run: each bundle, imported in this process, answers
 * the CSRF token, signs in with the Credentials provider and reads the JWT session back. A missed
 * target prints MISS and exits 0. `EDGE_KEEP=<dir>` keeps the bundles and metafiles there.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { CheckFailed, check } from "./check.mjs";

const benchDir = fileURLToPath(new URL(".", import.meta.url));
const rootDir = fileURLToPath(new URL("..", import.meta.url));
// The workspace's esbuild (a root devDependency), not the older copy Vite 4 left in bench/.
const esbuild = createRequire(join(rootDir, "package.json"))("esbuild");

const SECRET = "edge-bundle-secret-0123456789abcdef0123456789";
const ORIGIN = "https://edge.example.com";

/** The app, written once; `core` is the package it is built on. */
const app = (core) => `
import { Auth } from "${core}";
import Credentials from "${core}/providers/credentials";

const config = {
  secret: ${JSON.stringify(SECRET)},
  trustHost: true,
  basePath: "/auth",
  providers: [
    Credentials({
      credentials: { email: { label: "Email", type: "email" }, password: { type: "password" } },
      authorize: async ({ email, password }) =>
        password === "correct horse" ? { id: "1", name: "Ada", email: String(email) } : null,
    }),
  ],
};

const handler = (req) => Auth(req, config);

export default { fetch: (req) => handler(req) };
`;

export const LIBRARIES = [
  { name: "Gatehouse", core: "@gatehousejs/core" },
  { name: "@auth/core", core: "@auth/core" },
];

/** esbuild's options for a Workers bundle of `source`, resolved from bench/. */
export function buildOptions(source, { minify, fromSources = false }) {
  return {
    stdin: { contents: source, resolveDir: benchDir, sourcefile: "worker.mjs", loader: "js" },
    absWorkingDir: rootDir,
    bundle: true,
    write: false,
    metafile: true,
    format: "esm",
    platform: "neutral",
    conditions: fromSources ? ["gatehouse-source", "worker", "browser"] : ["worker", "browser"],
    mainFields: ["browser", "module", "main"],
    target: "es2022",
    define: { "process.env.NODE_ENV": '"production"' },
    // Left to the runtime, and then refused by the check below: a bundle that needs one does not
    // run on a Worker without nodejs_compat.
    external: ["node:*"],
    minify,
    logLevel: "silent",
  };
}

/** The package an input path belongs to (the app itself is "(the app)"). */
export function owner(path) {
  const at = path.lastIndexOf("node_modules/");
  if (at >= 0) {
    const parts = path.slice(at + "node_modules/".length).split("/");
    return parts[0].startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  if (/^packages\/core\//.test(path)) return "@gatehousejs/core";
  return path === "bench/worker.mjs" ? "(the app)" : path;
}

/** Where in Gatehouse's core an input path is: `lib/<folder>/`, `lib/*`, or the entry points. */
export function coreFolder(path) {
  const inside = path.match(/^packages\/core\/(?:dist|src)\/(.*)$/)?.[1];
  if (!inside) return undefined;
  const parts = inside.split("/");
  if (parts[0] !== "lib") return "entry points";
  return parts.length > 2 ? `lib/${parts[1]}/` : "lib/*";
}

/**
 * The sign-in method a Gatehouse module (or package) serves, when it serves one that the app does
 * not configure: the app has Credentials only, so any of these is code it never runs.
 */
export function unusedMethod(path) {
  if (/\/@simplewebauthn\/|webauthn/.test(path)) return "WebAuthn";
  if (/\/oauth4webapi\/|\/lib\/oauth\/|callback\/oauth|backchannel-logout/.test(path))
    return "OAuth";
  if (/\/lib\/email\/|callback\/email|verify-request|email-confirm/.test(path)) return "email";
  return undefined;
}

/** Bytes of the one output file of a metafile, summed by `key` of each input path. */
export function shares(metafile, key = owner) {
  const [output] = Object.values(metafile.outputs);
  const sums = new Map();
  for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
    const who = key(path);
    if (who !== undefined) sums.set(who, (sums.get(who) ?? 0) + bytesInOutput);
  }
  return [...sums].sort((a, b) => b[1] - a[1]);
}

/** The imports a bundle leaves to the runtime (`node:*`), with who imports them. */
function externals(metafile) {
  const found = [];
  for (const [path, input] of Object.entries(metafile.inputs)) {
    for (const i of input.imports) if (i.external) found.push(`${i.path} (from ${path})`);
  }
  return found;
}

/** Bundles one library's app, minified and not. */
export async function bundle(lib) {
  const source = app(lib.core);
  const out = {};
  for (const minify of [true, false]) {
    const result = await esbuild.build(buildOptions(source, { minify }));
    const [file] = result.outputFiles;
    out[minify ? "min" : "full"] = { code: file.text, bytes: file.contents.byteLength };
    if (minify) {
      out.gzip = gzipSync(file.contents).byteLength;
      out.metafile = result.metafile;
    }
  }
  if (lib.core === "@gatehousejs/core") {
    const built = await esbuild.build(buildOptions(source, { minify: true, fromSources: true }));
    out.sources = { bytes: built.outputFiles[0].contents.byteLength, metafile: built.metafile };
  }
  return out;
}

/** Imports a bundle and signs in through it: CSRF token, Credentials callback, session. */
async function checkRuns(lib, code, dir) {
  const file = join(dir, `${lib.name.replace(/\W/g, "_")}.mjs`);
  writeFileSync(file, code);
  const worker = (await import(pathToFileURL(file).href)).default;
  const call = (path, init) => worker.fetch(new Request(`${ORIGIN}/auth/${path}`, init));
  const cookiesOf = (response) =>
    response.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");

  const csrf = await call("csrf");
  check(csrf.status === 200, `${lib.name}: GET /auth/csrf answered ${csrf.status}`);
  const { csrfToken } = await csrf.json();
  const signIn = await call("callback/credentials", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookiesOf(csrf) },
    body: new URLSearchParams({
      csrfToken,
      email: "ada@example.com",
      password: "correct horse",
    }),
    redirect: "manual",
  });
  const session = cookiesOf(signIn)
    .split("; ")
    // On https both name it __Secure-authjs.session-token.
    .find((c) => c.startsWith("__Secure-authjs.session-token="));
  check(session, `${lib.name}: the credentials sign-in set no session cookie (${signIn.status})`);
  const read = await call("session", { headers: { cookie: session } });
  const body = await read.json();
  check(body?.user?.email === "ada@example.com", `${lib.name}: the session has no user`);
  return "signs in and reads the session";
}

const kib = (bytes) => `${(bytes / 1024).toFixed(0)} KiB`;

/** Both bundles, checked; returns the figures and the verdict. */
export async function edgeBundles({ keep } = {}) {
  const dir = keep ?? mkdtempSync(join(tmpdir(), "edge-bundle-"));
  mkdirSync(dir, { recursive: true });
  try {
    const results = {};
    for (const lib of LIBRARIES) {
      const out = await bundle(lib);
      const left = externals(out.metafile);
      check(left.length === 0, `${lib.name}: the bundle imports ${left.join(", ")}`);
      out.runs = await checkRuns(lib, out.min.code, dir);
      if (keep) {
        const name = lib.name.replace(/\W/g, "_");
        writeFileSync(join(dir, `${name}.full.mjs`), out.full.code);
        writeFileSync(join(dir, `${name}.meta.json`), JSON.stringify(out.metafile));
        if (out.sources) {
          writeFileSync(join(dir, `${name}.src.meta.json`), JSON.stringify(out.sources.metafile));
        }
      }
      results[lib.name] = out;
    }
    const g = results.Gatehouse;
    const a = results["@auth/core"];
    const ratio = g.min.bytes / a.min.bytes;
    return { results, ratio, verdict: ratio <= 1 ? "PASS" : "MISS" };
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}

/** The table and the per-package breakdown, as printed. */
export function edgeBundleReport({ results, ratio, verdict }) {
  const lines = ["| library | minified | gzip | unminified | runs |", "|---|---:|---:|---:|---|"];
  for (const [name, r] of Object.entries(results)) {
    lines.push(
      `| ${name} | ${kib(r.min.bytes)} | ${kib(r.gzip)} | ${kib(r.full.bytes)} | ${r.runs} |`,
    );
  }
  lines.push(
    "",
    `Gatehouse / @auth/core, minified: ${ratio.toFixed(2)}× (target ≤ 1×) ${verdict}`,
    "",
  );
  const list = (title, rows) => {
    lines.push(title);
    for (const [who, bytes] of rows) lines.push(`  ${kib(bytes).padStart(8)}  ${who}`);
  };
  for (const [name, r] of Object.entries(results)) {
    list(`${name}, minified, by package:`, shares(r.metafile));
  }
  const sources = results.Gatehouse.sources;
  list(
    `Gatehouse's own code, by folder (the app bundled from core's src/: ${kib(sources.bytes)} minified):`,
    shares(sources.metafile, coreFolder),
  );
  list(
    "Gatehouse, sign-in methods the app does not configure (modules by name; oauth4webapi in OAuth):",
    shares(sources.metafile, unusedMethod),
  );
  return lines.join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const version = createRequire(join(rootDir, "package.json"))("esbuild/package.json").version;
    console.log(`esbuild ${version}, node ${process.version}`);
    const measured = await edgeBundles({ keep: process.env.EDGE_KEEP });
    console.log(edgeBundleReport(measured));
    const g = measured.results.Gatehouse.min.bytes;
    const a = measured.results["@auth/core"].min.bytes;
    console.log(
      `BENCH edge-bundle=${measured.ratio.toFixed(2)}x/<=1x:${measured.verdict}(${g}/${a})`,
    );
  } catch (error) {
    console.error(error instanceof CheckFailed ? `bench check failed: ${error.message}` : error);
    process.exit(1);
  }
}
