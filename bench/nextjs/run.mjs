/**
 * Next.js 16 App Router: next-auth v5 against @gatehousejs/nextjs, each in an app of its own, built
 * with `next build` and served with `next start`, the same configuration in both (apps/shared/:
 * a Credentials provider, JWT sessions, the same secret; the proxy lets only signed-in requests
 * through). Each app has
 *
 * - `/`, the floor: no proxy (its matcher skips it), no auth(), rendered on every request;
 * - `/protected`, behind `proxy.ts` (`export { auth as proxy } from "./auth"`), whose Server
 *   Component reads `await auth()` again and prints the user;
 * - `/api/timing`, a route handler timing `await auth()` in the server.
 *
 * A third app, "Next.js alone" (apps/bare/), has the same pages with a pass-through proxy and an
 * auth() that only reads cookies(): no library, for the ceiling of row 1 and Next's own share of
 * a proxy bundle (info only).
 *
 * Three rows (issue 24):
 *
 * 1. protected page req/s ÷ floor page req/s, per library, over HTTP with keep-alive (a load
 *    generator in a process of its own: this file with `--load-generator`). Gatehouse's target is
 *    ≥ 0.8; next-auth's is printed beside it. Rounds alternate the apps and the pages, and each
 *    ratio is the median of the per-round ratios (protected and floor of one app, same round).
 *    Beside it, the same quotient from the server's CPU time a request (floor ÷ protected), which
 *    load from outside the server moves less.
 * 2. `await auth()` median time in a route handler, timed with performance.now() in the server,
 *    one call a request, requests one after the other (nothing else runs in the server while it
 *    is timed). Target: next-auth's ÷ Gatehouse's ≥ 20. Beside it (info): the server's CPU time
 *    over the call, the same with a session never sent before on every call (no decryption to
 *    remember), and Next's cookies() alone and headers() alone (what both libraries' auth()
 *    reads the request through).
 * 3. The proxy's bundle: `.next/server/middleware.js` and every chunk of `.next/` its trace
 *    (`middleware.js.nft.json`) lists, JavaScript only, no source maps, no `node_modules` (Next's
 *    own runtime, the same for both, is loaded from there). Target: Gatehouse ≤ half of next-auth.
 *    Beside it (info): the part loaded when the proxy starts, the bytes over Next.js alone's
 *    bundle, and the bytes by package (read from the chunks' source maps).
 *
 * Each library's session cookie is the one it issues: the bench signs in through the app's own
 * Credentials flow (CSRF token, form POST) once, before anything is timed. Everything is checked
 * before it is timed: the floor answers 200; `/protected` without a cookie is redirected by the
 * proxy to the sign-in page, and with the cookie answers 200 with the user's name and email;
 * `/api/timing` saw the session, and no session without the cookie. Every timed answer must have
 * the status and body length its check saw, and a server that logs an error (anything on stderr
 * but a `[…][warn]` line, or a line with "error" on stdout) fails the run.
 *
 * Builds go to `bench/nextjs/dist/<app>/` (gitignored like every `dist/`, and skipped by Biome):
 * the app's sources (apps/shared/, then apps/<app>/ over them) are copied there and built, and
 * the build is reused while a hash of the sources, the Next.js, React and next-auth versions and
 * Gatehouse's built `dist/` is unchanged (NEXTJS_REBUILD=1 forces a build, NEXTJS_REBUILD=0 reuses
 * any build there). Gatehouse's app needs `packages/nextjs/dist` and `packages/core/dist` built
 * (`npm run build` at the root); without them its rows say "skipped" and the rest still runs.
 *
 * `node bench/nextjs/run.mjs` (or `npm run bench:nextjs -w bench`): about 2 minutes, plus 30–60 s
 * per app it has to build; not part of `npm run bench`. Knobs: NEXTJS_ROUNDS (default 12),
 * NEXTJS_RUN_MS (timed ms per page per round, default 1000), NEXTJS_WARMUP_MS (per page before the
 * rounds, default 3000), NEXTJS_CONNECTIONS (default 8), NEXTJS_AUTH_CALLS (timed auth() calls per
 * app, default 600, in rounds), NEXTJS_APPS (ids to run, `bare,next-auth,gatehouse`),
 * NEXTJS_REBUILD, NEXTJS_PROFILE (ids whose server runs with `--cpu-prof`, into
 * NEXTJS_PROFILE_DIR, default `.tmp/nextjs-profiles` at the root).
 */
import { fork, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { Agent, request as httpRequest } from "node:http";
import { createServer } from "node:net";
import { availableParallelism, cpus, loadavg } from "node:os";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { CheckFailed, check } from "../check.mjs";
import { median } from "../harness.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const nextBin = join(root, "node_modules", "next", "dist", "bin", "next");
const HOST = "127.0.0.1";
const SALT = "authjs.session-token";
const USER = {
  id: "3f1c2d4e-0000-4000-8000-000000000001",
  name: "Ada Lovelace",
  email: "ada@example.com",
  password: "correct horse",
};
/** The apps' secret (apps/shared/config.ts), to mint the sessions of the fresh-session timing. */
const SECRET = "nextjs-bench-secret-0123456789abcdef0123456789abcdef";

/** Targets of issue 24. */
export const TARGETS = { pageRatio: 0.8, authSpeedup: 20, bundleRatio: 0.5 };

const APPS = [
  {
    id: "bare",
    name: "Next.js alone",
    label: "no library (pass-through proxy)",
    bare: true,
    inputs: () => [],
    missing: () => undefined,
  },
  {
    id: "next-auth",
    name: "next-auth",
    label: `next-auth ${version("next-auth")}`,
    authPath: "/api/auth",
    // What the build depends on besides the app's sources.
    inputs: () => [version("next-auth")],
    missing: () => undefined,
  },
  {
    id: "gatehouse",
    name: "Gatehouse",
    label: "@gatehousejs/nextjs",
    authPath: "/api/auth",
    inputs: () => [
      hashTree(join(root, "packages", "nextjs", "dist")),
      hashTree(join(root, "packages", "core", "dist")),
    ],
    missing: () => {
      for (const pkg of ["nextjs", "core"]) {
        const entry = join(root, "packages", pkg, "dist", "index.js");
        if (!existsSync(entry)) return `packages/${pkg}/dist/index.js is not built`;
      }
      return undefined;
    },
  },
];

function version(pkg) {
  return JSON.parse(readFileSync(join(root, "node_modules", pkg, "package.json"), "utf8")).version;
}

/** Every file under `dir`, sorted, relative to it. */
function files(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) out.push(relative(dir, path));
    }
  };
  walk(dir);
  return out.sort();
}

/** A hash of the names and contents of every file under `dir`. */
function hashTree(dir) {
  const hash = createHash("sha256");
  for (const file of files(dir)) {
    hash
      .update(file)
      .update("\0")
      .update(readFileSync(join(dir, file)))
      .update("\0");
  }
  return hash.digest("hex");
}

// ---------------------------------------------------------------------------------------------
// Building.

/**
 * The app's sources copied to `dist/<id>/` and built there with `next build`, unless the build
 * there was made from the same inputs. Returns the app's directory.
 */
function build(app) {
  const dir = join(here, "dist", app.id);
  const inputs = [
    hashTree(join(here, "apps", "shared")),
    hashTree(join(here, "apps", app.id)),
    version("next"),
    version("react"),
    ...app.inputs(),
  ];
  const key = createHash("sha256").update(inputs.join("\n")).digest("hex");
  const stamp = join(dir, ".bench-build");
  const built = existsSync(join(dir, ".next", "BUILD_ID"));
  const rebuild = process.env.NEXTJS_REBUILD;
  const reuse =
    built &&
    (rebuild === "0" ||
      (rebuild !== "1" && existsSync(stamp) && readFileSync(stamp, "utf8") === key));
  if (reuse) {
    console.log(`${app.name}: reusing the build in ${relative(root, dir)}`);
    return dir;
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  cpSync(join(here, "apps", "shared"), dir, { recursive: true });
  cpSync(join(here, "apps", app.id), dir, { recursive: true });
  console.log(`${app.name}: next build in ${relative(root, dir)} …`);
  const started = performance.now();
  const result = nextBuild(dir);
  check(result === 0, `${app.name}: next build exited ${result}`);
  writeFileSync(stamp, key);
  console.log(
    `${app.name}: built in ${((performance.now() - started) / 1000).toFixed(1)} s (${relative(root, dir)})`,
  );
  return dir;
}

/** Runs `next build` in `dir` to its end; its output is shown only if it fails. */
function nextBuild(dir) {
  const result = spawnSync(process.execPath, [nextBin, "build"], {
    cwd: dir,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) process.stdout.write(`${result.stdout ?? ""}${result.stderr ?? ""}`);
  return result.status;
}

// ---------------------------------------------------------------------------------------------
// The proxy's bundle.

/**
 * The proxy as Next 16 writes it: `.next/server/middleware.js`, which loads its chunks, and every
 * other file of `.next/` its trace lists (the Turbopack runtime, the chunks it loads at start and
 * those it may load later), `.js` only. Files under `node_modules` are Next's own server runtime,
 * loaded from the install and not bundled, the same for both. `bytes` is the whole; `eager` the
 * part `middleware.js` loads when the proxy starts (its `R.c(…)` chunks and the runtime).
 */
export function proxyBundle(dir) {
  const server = join(dir, ".next", "server");
  const entry = join(server, "middleware.js");
  check(existsSync(entry), `${dir}: no .next/server/middleware.js (was proxy.ts built?)`);
  const trace = JSON.parse(readFileSync(join(server, "middleware.js.nft.json"), "utf8"));
  const chunks = trace.files
    .filter((f) => !f.split("/").includes("node_modules") && f.endsWith(".js"))
    .map((f) => normalize(join(server, f)));
  const all = [entry, ...chunks.filter((f) => f !== entry)];
  for (const f of all) check(existsSync(f), `${dir}: the proxy's trace lists ${f}, not built`);
  const source = readFileSync(entry, "utf8");
  const loaded = new Set([entry, join(server, "chunks", "[turbopack]_runtime.js")]);
  for (const [, chunk] of source.matchAll(/R\.c\("server\/([^"]+)"\)/g)) {
    loaded.add(join(server, chunk));
  }
  for (const f of loaded) check(all.includes(f), `${dir}: middleware.js loads ${f}, not traced`);
  const sizes = all.map((f) => ({
    file: relative(server, f),
    bytes: statSync(f).size,
    eager: loaded.has(f),
  }));
  const byPackage = new Map();
  for (const f of all) {
    for (const [who, n] of packageShares(f)) byPackage.set(who, (byPackage.get(who) ?? 0) + n);
  }
  return {
    bytes: sizes.reduce((n, x) => n + x.bytes, 0),
    eager: sizes.reduce((n, x) => n + (x.eager ? x.bytes : 0), 0),
    files: sizes,
    byPackage: [...byPackage].sort((a, b) => b[1] - a[1]),
  };
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** The segments of one line of a source map's `mappings`, each as its (relative) numbers. */
function segments(line) {
  const out = [];
  for (const text of line.split(",")) {
    if (text === "") continue;
    const fields = [];
    let value = 0;
    let shift = 0;
    for (const char of text) {
      const digit = BASE64.indexOf(char);
      value += (digit & 31) << shift;
      if (digit & 32) {
        shift += 5;
      } else {
        fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
        value = 0;
        shift = 0;
      }
    }
    out.push(fields);
  }
  return out;
}

/** The package a source of a chunk's map belongs to. */
function packageOf(encoded) {
  const source = decodeURIComponent(encoded);
  const at = source.lastIndexOf("node_modules/");
  if (at >= 0) {
    const parts = source.slice(at + "node_modules/".length).split("/");
    return parts[0].startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  const pkg = source.match(/(?:^|\/)packages\/([^/]+)\//);
  if (pkg) return `@gatehousejs/${pkg[1]}`;
  if (/turbopack/i.test(source)) return "(Turbopack runtime)";
  return "(the app)";
}

/**
 * Where each mapping of a source map (or of each section of a sectioned one) starts in the
 * generated code, with the package of its source: `[line, column, package]`, `package` undefined
 * for a mapping to no source.
 */
function marks(map, line0 = 0, column0 = 0) {
  if (map.sections) {
    return map.sections.flatMap((s) => marks(s.map, line0 + s.offset.line, s.offset.column));
  }
  const out = [];
  let source = 0;
  map.mappings.split(";").forEach((text, i) => {
    let column = i === 0 ? column0 : 0;
    for (const fields of segments(text)) {
      column += fields[0];
      if (fields.length >= 4) source += fields[1];
      out.push([
        line0 + i,
        column,
        fields.length >= 4 ? packageOf(map.sources[source]) : undefined,
      ]);
    }
  });
  return out;
}

/**
 * A chunk's characters by the package of the source each comes from, read from its source map
 * (characters, not bytes: these chunks are ASCII but for a few strings). What no mapping covers,
 * and a chunk with no map, counts as "(Turbopack runtime)" when it is the runtime, else "(glue)".
 */
function packageShares(file) {
  const code = readFileSync(file, "utf8");
  const glue = /\[turbopack\]_runtime\.js$/.test(file) ? "(Turbopack runtime)" : "(glue)";
  const sums = new Map();
  const add = (who, n) => sums.set(who, (sums.get(who) ?? 0) + n);
  if (!existsSync(`${file}.map`)) {
    add(glue, code.length);
    return sums;
  }
  const starts = [0];
  for (let i = code.indexOf("\n"); i >= 0; i = code.indexOf("\n", i + 1)) starts.push(i + 1);
  const found = marks(JSON.parse(readFileSync(`${file}.map`, "utf8")))
    .map(([line, column, who]) => [
      Math.min(code.length, (starts[line] ?? code.length) + column),
      who,
    ])
    .sort((a, b) => a[0] - b[0]);
  let at = 0;
  let who = glue;
  for (const [offset, next] of found) {
    add(who, offset - at);
    at = offset;
    who = next ?? glue;
  }
  add(who, code.length - at);
  return sums;
}

// ---------------------------------------------------------------------------------------------
// Serving.

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, HOST, () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** This process's CPU time in µs (user + system), from /proc; undefined where there is none. */
function cpuUs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
  } catch {
    return undefined;
  }
}

/**
 * The log entries of a stream's text: a line that starts with neither a space nor `at ` opens an
 * entry, and the lines after it (a stack, say) belong to it.
 */
function entries(text) {
  const out = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    if (/^\s/.test(line) && out.length > 0) out[out.length - 1] += `\n${line}`;
    else out.push(line);
  }
  return out;
}

/** A library's warning (`[auth][warn]…`, `[gatehouse][warn]…`) or Next's (`⚠ …`). */
const isWarning = (entry) => /^(\[\w+\]\[warn\]|\s*⚠)/.test(entry);

/**
 * The Node flags of app `id`'s server: `--cpu-prof` into NEXTJS_PROFILE_DIR when NEXTJS_PROFILE
 * names it (the profile is written when the server exits at the end of the run).
 */
function profiling(id) {
  if (!(process.env.NEXTJS_PROFILE ?? "").split(",").includes(id)) return [];
  const dir = process.env.NEXTJS_PROFILE_DIR ?? join(root, ".tmp", "nextjs-profiles");
  mkdirSync(dir, { recursive: true });
  return ["--cpu-prof", `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${id}.cpuprofile`];
}

/** `next start` of the app on a free port; resolves once it answers. */
async function start(app, dir) {
  const port = await freePort();
  const profile = profiling(app.id);
  const args = [...profile, nextBin, "start", "-p", String(port), "-H", HOST];
  const proc = spawn(process.execPath, args, {
    cwd: dir,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let ready = false;
  const output = { out: "", err: "" };
  const warnings = new Set();
  proc.stdout.on("data", (chunk) => {
    if (ready) output.out += chunk;
  });
  proc.stderr.on("data", (chunk) => {
    output.err += chunk;
  });
  const exited = new Promise((resolve) => proc.once("exit", resolve));
  const deadline = performance.now() + 30_000;
  for (;;) {
    if (proc.exitCode !== null) {
      throw new CheckFailed(`${app.name}: next start exited ${proc.exitCode}`);
    }
    try {
      await get(port, "/api/auth/csrf");
      break;
    } catch {
      if (performance.now() > deadline) {
        proc.kill("SIGTERM");
        await exited;
        throw new CheckFailed(`${app.name}: next start did not answer in 30 s`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  ready = true;
  return {
    port,
    pid: proc.pid,
    cpuUs: () => cpuUs(proc.pid),
    /**
     * Throws if the server logged an error since the last look: anything on stderr but a library's
     * warning, or a line with "error" in it on stdout. Warnings are kept for the report.
     */
    assertClean(what) {
      const errors = [];
      for (const [stream, text] of Object.entries(output)) {
        for (const entry of entries(text)) {
          if (isWarning(entry)) warnings.add(entry.split("\n")[0].slice(0, 160));
          else if (stream === "err" || /error/i.test(entry)) errors.push(entry);
        }
      }
      output.out = "";
      output.err = "";
      const first = errors[0]?.split("\n")[0].slice(0, 200);
      check(errors.length === 0, `${app.name}: the server logged an error ${what}: ${first}`);
    },
    warnings,
    stop: async () => {
      if (proc.exitCode === null) proc.kill("SIGTERM");
      await exited;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Requests.

/** One untimed request over a fresh connection: `{ status, headers, body }`. */
function get(port, path, { method = "GET", headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: HOST, port, path, method, headers, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => {
        text += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: text }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** `name=value` of each `Set-Cookie` of an answer. */
const setCookies = (response) =>
  (response.headers["set-cookie"] ?? []).map((c) => c.slice(0, c.indexOf(";")));

/**
 * Signs in through the app's own Credentials flow, as a browser does; returns the session cookie
 * (`authjs.session-token=…`) it issued.
 */
async function signIn(app, server) {
  const csrf = await get(server.port, `${app.authPath}/csrf`);
  check(csrf.status === 200, `${app.name}: GET ${app.authPath}/csrf answered ${csrf.status}`);
  const { csrfToken } = JSON.parse(csrf.body);
  const form = new URLSearchParams({ csrfToken, email: USER.email, password: USER.password });
  const answer = await get(server.port, `${app.authPath}/callback/credentials`, {
    method: "POST",
    headers: {
      cookie: setCookies(csrf).join("; "),
      "content-type": "application/x-www-form-urlencoded",
    },
    body: form.toString(),
  });
  check(
    answer.status === 302 || answer.status === 303,
    `${app.name}: the credentials sign-in answered ${answer.status}, expected a redirect`,
  );
  const session = setCookies(answer).find((c) => c.startsWith(`${SALT}=`));
  check(session !== undefined, `${app.name}: the credentials sign-in set no ${SALT} cookie`);
  return session;
}

/** The untimed checks of one app; returns the body lengths every timed answer must have. */
async function checkApp(app, server, cookie) {
  const floor = await get(server.port, "/");
  check(floor.status === 200, `${app.name}: GET / answered ${floor.status}`);
  check(floor.body.includes("Public page"), `${app.name}: GET / is not the public page`);

  const out = await get(server.port, "/protected");
  if (app.bare) {
    check(out.status === 200, `${app.name}: GET /protected answered ${out.status}, expected 200`);
  } else {
    check(
      out.status >= 300 && out.status < 400,
      `${app.name}: GET /protected without a cookie answered ${out.status}, expected a redirect`,
    );
    check(
      /\/api\/auth\/signin/.test(out.headers.location ?? ""),
      `${app.name}: GET /protected without a cookie is not sent to the sign-in page`,
    );
  }

  const lengths = new Set();
  let reissued = false;
  for (let i = 0; i < 3; i++) {
    const page = await get(server.port, "/protected", { headers: { cookie } });
    check(
      page.status === 200,
      `${app.name}: GET /protected with the cookie answered ${page.status}`,
    );
    check(
      page.body.includes(USER.email) && page.body.includes(USER.name),
      `${app.name}: GET /protected does not show the signed-in user`,
    );
    lengths.add(Buffer.byteLength(page.body));
    reissued ||= setCookies(page).some((c) => c.startsWith(`${SALT}=`));
  }
  check(lengths.size === 1, `${app.name}: GET /protected answers bodies of different lengths`);

  const timing = await get(server.port, "/api/timing?n=3", { headers: { cookie } });
  check(timing.status === 200, `${app.name}: GET /api/timing answered ${timing.status}`);
  const { ms, email } = JSON.parse(timing.body);
  check(email === USER.email, `${app.name}: auth() in the route handler saw no session`);
  check(ms.length === 3 && ms.every((t) => t >= 0), `${app.name}: /api/timing answered no times`);
  if (!app.bare) {
    const anonymous = JSON.parse((await get(server.port, "/api/timing")).body);
    check(anonymous.email === null, `${app.name}: auth() without a cookie saw a session`);
  }

  server.assertClean("while checked");
  return {
    floor: Buffer.byteLength(floor.body),
    protected: [...lengths][0],
    reissued,
  };
}

// ---------------------------------------------------------------------------------------------
// The load generator: this same file, run as a child process.

/**
 * Sends `GET path` over `connections` keep-alive sockets for `ms` milliseconds, each socket sending
 * its next request as soon as the last answer is read. Answers other than `status` with a body of
 * `length` bytes are counted as bad.
 */
async function drive({ port, path, headers, ms, connections, status, length }) {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const options = { agent, host: HOST, port, path, headers };
  let requests = 0;
  let bad = 0;
  let firstBad;
  const one = () =>
    new Promise((resolve, reject) => {
      const req = httpRequest(options, (res) => {
        let got = 0;
        res.on("data", (chunk) => {
          got += chunk.length;
        });
        res.on("end", () => {
          if (res.statusCode !== status || got !== length) {
            bad++;
            firstBad ??= `status ${res.statusCode}, ${got} bytes`;
          }
          resolve();
        });
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end();
    });
  const begin = performance.now();
  const end = begin + ms;
  const loop = async () => {
    while (performance.now() < end) {
      await one();
      requests++;
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  const elapsed = performance.now() - begin;
  agent.destroy();
  return { requests, ms: elapsed, bad, firstBad };
}

function loadGenerator() {
  process.on("message", (job) => {
    if (job === "exit") process.exit(0);
    drive(job).then(
      (result) => process.send(result),
      (error) => process.send({ error: String(error?.stack ?? error) }),
    );
  });
  process.on("disconnect", () => process.exit(0));
  process.send({ ready: true });
}

/** The load generator's process, one job at a time. */
async function startGenerator() {
  const proc = fork(fileURLToPath(import.meta.url), ["--load-generator"], {
    execArgv: [],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const next = () =>
    new Promise((resolve, reject) => {
      const onExit = (code) => reject(new Error(`the load generator exited (${code})`));
      proc.once("exit", onExit);
      proc.once("message", (message) => {
        proc.off("exit", onExit);
        if (message.error) reject(new Error(message.error));
        else resolve(message);
      });
    });
  await next();
  return {
    run: (job) => {
      const answer = next();
      proc.send(job);
      return answer;
    },
    stop: () => {
      if (proc.connected) proc.send("exit");
    },
  };
}

/** One timed run of one page: requests a second and the server's CPU µs a request. */
async function timedRun(generator, page, ms, connections) {
  const before = page.server.cpuUs();
  const result = await generator.run({
    port: page.server.port,
    path: page.path,
    headers: page.headers,
    ms,
    connections,
    status: 200,
    length: page.length,
  });
  const after = page.server.cpuUs();
  page.server.assertClean(`while ${page.path} was timed`);
  check(
    result.bad === 0,
    `${page.app.name} ${page.path}: ${result.bad} bad answer(s) while timed, the first: ${result.firstBad}`,
  );
  return {
    rate: (result.requests * 1000) / result.ms,
    cpuUs: before === undefined ? undefined : (after - before) / result.requests,
  };
}

// ---------------------------------------------------------------------------------------------
// auth() in a route handler.

/**
 * `calls` requests to `/api/timing` (one `await auth()` each), one after the other over one
 * keep-alive socket; resolves to what the server measured of each: `{ ms, cpuUs }`.
 */
async function authTimes(server, cookies, calls, what = "auth") {
  const path = what === "auth" ? "/api/timing" : `/api/timing?what=${what}`;
  const expected =
    what === "auth" ? USER.email : what === "cookies" || what === "headers" ? "cookie" : "none";
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const times = [];
  try {
    for (let i = 0; i < calls; i++) {
      const answer = await new Promise((resolve, reject) => {
        const req = httpRequest(
          {
            agent,
            host: HOST,
            port: server.port,
            path,
            headers: { cookie: typeof cookies === "string" ? cookies : cookies[i] },
          },
          (res) => {
            let text = "";
            res.setEncoding("utf8");
            res.on("data", (chunk) => {
              text += chunk;
            });
            res.on("end", () => resolve({ status: res.statusCode, body: text }));
            res.on("error", reject);
          },
        );
        req.on("error", reject);
        req.end();
      });
      check(answer.status === 200, `/api/timing answered ${answer.status} while timed`);
      const { ms, cpuUs, email } = JSON.parse(answer.body);
      check(email === expected, `${what}: saw no session while timed`);
      times.push({ ms: ms[0], cpuUs: cpuUs[0] });
    }
  } finally {
    agent.destroy();
  }
  return times;
}

// ---------------------------------------------------------------------------------------------
// The run.

const spread = (values) => {
  const m = median(values);
  return m > 0 ? (Math.max(...values) - Math.min(...values)) / 2 / m : 0;
};

export async function nextjsBench({
  rounds = 12,
  runMs = 1000,
  warmupMs = 3000,
  connections = 8,
  authCalls = 600,
  only,
} = {}) {
  const chosen = only ? APPS.filter((a) => only.includes(a.id)) : APPS;
  const apps = [];
  const skipped = {};
  for (const app of chosen) {
    const why = app.missing();
    if (why) {
      console.log(`skipped ${app.name}: ${why}`);
      skipped[app.id] = why;
      continue;
    }
    apps.push({ ...app, dir: build(app) });
  }
  for (const app of apps) app.bundle = proxyBundle(app.dir);

  // Sessions minted with @auth/core's encode, the apps' secret and salt: both libraries read them
  // (checked below), and the fresh-session timing sends each once.
  const { encode } = await import("@auth/core/jwt");
  check(
    readFileSync(join(here, "apps", "shared", "config.ts"), "utf8").includes(SECRET),
    "the bench's SECRET is not the one in apps/shared/config.ts",
  );
  const mint = async (tag) =>
    `${SALT}=${await encode({
      secret: SECRET,
      salt: SALT,
      token: { name: USER.name, email: USER.email, sub: `${USER.id}-${tag}` },
    })}`;

  const load = [loadavg()[0]];
  const generator = await startGenerator();
  try {
    for (const app of apps) {
      app.server = await start(app, app.dir);
      // The app without a library gets a session cookie too, so its requests are the same size.
      app.cookie = app.bare ? await mint("bare") : await signIn(app, app.server);
      app.lengths = await checkApp(app, app.server, app.cookie);
      app.pages = {
        floor: { app, server: app.server, path: "/", headers: {}, length: app.lengths.floor },
        protected: {
          app,
          server: app.server,
          path: "/protected",
          headers: { cookie: app.cookie },
          length: app.lengths.protected,
        },
      };
    }
    // The shared wire format: each app reads the other's session cookie (same secret, same salt).
    const crossRead = {};
    const libs = apps.filter((a) => !a.bare);
    if (libs.length === 2) {
      for (const [reader, minter] of [libs, [...libs].reverse()]) {
        const answer = await get(reader.server.port, "/api/timing", {
          headers: { cookie: minter.cookie },
        });
        crossRead[reader.id] = JSON.parse(answer.body).email === USER.email;
        reader.server.assertClean("reading the other app's cookie");
      }
    }
    console.log(
      `checked ${apps
        .map(
          (a) =>
            `${a.id} (floor ${a.lengths.floor} B, protected ${a.lengths.protected} B, ` +
            `${a.lengths.reissued ? "re-issues" : "does not re-issue"} the session cookie)`,
        )
        .join(", ")}`,
    );

    // Warm-up: every page and the timing route of both apps.
    const pages = apps.flatMap((a) => [a.pages.floor, a.pages.protected]);
    for (const page of pages) await timedRun(generator, page, warmupMs, connections);
    for (const app of libs) await authTimes(app.server, app.cookie, Math.ceil(authCalls / 3));

    for (const page of pages) page.runs = [];
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? pages : [...pages].reverse();
      for (const page of order) page.runs.push(await timedRun(generator, page, runMs, connections));
      load.push(loadavg()[0]);
    }

    // auth() alone: in rounds, the order alternating, one app at a time.
    for (const app of libs) {
      app.authTimes = [];
      app.cookieTimes = [];
      app.headerTimes = [];
      app.emptyTimes = [];
    }
    const authRounds = 6;
    const perRound = Math.ceil(authCalls / authRounds);
    // Sessions never sent before, one per call: a library that remembers what it decrypted (as
    // Gatehouse does) decrypts every one of these.
    for (const app of libs) {
      app.fresh = [];
      app.freshTimes = [];
      for (let i = 0; i < perRound * authRounds; i++) app.fresh.push(await mint(`${app.id}-${i}`));
    }
    for (let r = 0; r < authRounds; r++) {
      const order = r % 2 === 0 ? libs : [...libs].reverse();
      for (const app of order) {
        app.authTimes.push(
          ...(await authTimes(app.server, app.cookie, Math.ceil(authCalls / authRounds))),
        );
        app.cookieTimes.push(
          ...(await authTimes(
            app.server,
            app.cookie,
            Math.ceil(authCalls / authRounds),
            "cookies",
          )),
        );
        app.headerTimes.push(
          ...(await authTimes(
            app.server,
            app.cookie,
            Math.ceil(authCalls / authRounds),
            "headers",
          )),
        );
        app.emptyTimes.push(
          ...(await authTimes(app.server, app.cookie, Math.ceil(authCalls / authRounds), "none")),
        );
        app.freshTimes.push(
          ...(await authTimes(app.server, app.fresh.splice(0, perRound), perRound)),
        );
        app.server.assertClean("while auth() was timed");
      }
    }
    load.push(loadavg()[0]);

    const results = {};
    for (const app of apps) {
      const { floor, protected: prot } = app.pages;
      const ratios = prot.runs.map((run, i) => run.rate / floor.runs[i].rate);
      // The same quotient from the server's CPU time a request, which load from outside the
      // server moves less than its requests a second.
      const cpuRatios = prot.runs.map((run, i) => floor.runs[i].cpuUs / run.cpuUs);
      const summary = (page) => ({
        rate: median(page.runs.map((run) => run.rate)),
        spread: spread(page.runs.map((run) => run.rate)),
        cpuUs: page.runs[0].cpuUs === undefined ? undefined : median(page.runs.map((r) => r.cpuUs)),
      });
      // Against Next.js alone's protected page, round by round: what the library adds to a page
      // behind a proxy, over Next's own proxy and cookies().
      const bare = apps.find((a) => a.bare);
      const overBare =
        bare && !app.bare
          ? {
              rate: median(prot.runs.map((run, i) => run.rate / bare.pages.protected.runs[i].rate)),
              cpu: median(
                prot.runs.map((run, i) => bare.pages.protected.runs[i].cpuUs / run.cpuUs),
              ),
            }
          : undefined;
      results[app.id] = {
        overBare,
        name: app.name,
        label: app.label,
        floor: summary(floor),
        protected: summary(prot),
        ratio: median(ratios),
        ratios,
        cpuRatio: cpuRatios.some((x) => Number.isNaN(x)) ? undefined : median(cpuRatios),
        bare: Boolean(app.bare),
        ...(app.bare
          ? {}
          : {
              authMs: median(app.authTimes.map((t) => t.ms)),
              authCpuUs: median(app.authTimes.map((t) => t.cpuUs)),
              authCalls: app.authTimes.length,
              cookiesMs: median(app.cookieTimes.map((t) => t.ms)),
              cookiesCpuUs: median(app.cookieTimes.map((t) => t.cpuUs)),
              headersMs: median(app.headerTimes.map((t) => t.ms)),
              headersCpuUs: median(app.headerTimes.map((t) => t.cpuUs)),
              freshMs: median(app.freshTimes.map((t) => t.ms)),
              freshCpuUs: median(app.freshTimes.map((t) => t.cpuUs)),
              emptyMs: median(app.emptyTimes.map((t) => t.ms)),
              emptyCpuUs: median(app.emptyTimes.map((t) => t.cpuUs)),
            }),
        bundle: app.bundle,
        reissued: app.lengths.reissued,
        readsOther: crossRead[app.id],
        warnings: [...app.server.warnings],
      };
    }
    return {
      results,
      skipped,
      load: { min: Math.min(...load), max: Math.max(...load) },
      settings: { rounds, runMs, warmupMs, connections, authCalls },
    };
  } finally {
    generator.stop();
    for (const app of apps) await app.server?.stop();
  }
}

/** The three rows' verdicts and figures, for the table and the BENCH line. */
export function verdicts({ results }) {
  const cpu = (r) => (r.cpuRatio === undefined ? "—" : `${r.cpuRatio.toFixed(2)}×`);
  const g = results.gatehouse;
  const a = results["next-auth"];
  const rows = [];
  rows.push({
    id: "nextjs-protected-page",
    label: "protected page ÷ floor page, req/s (Gatehouse)",
    target: `≥ ${TARGETS.pageRatio}`,
    value: g ? g.ratio : undefined,
    shown: g
      ? `${g.ratio.toFixed(2)}× (CPU ${cpu(g)}; next-auth ${a ? `${a.ratio.toFixed(2)}×, CPU ${cpu(a)}` : "—"})`
      : "—",
    verdict: g ? (g.ratio >= TARGETS.pageRatio ? "PASS" : "MISS") : "skipped",
    summary: g
      ? `${g.ratio.toFixed(2)}x/${TARGETS.pageRatio}x:${g.ratio >= TARGETS.pageRatio ? "PASS" : "MISS"}(${Math.round(g.protected.rate)}/${Math.round(g.floor.rate)})`
      : "skipped",
  });
  const speedup = g && a ? a.authMs / g.authMs : undefined;
  rows.push({
    id: "nextjs-auth",
    label: "await auth() in a route handler, next-auth ÷ Gatehouse",
    target: `≥ ${TARGETS.authSpeedup}×`,
    value: speedup,
    shown: speedup === undefined ? "—" : `${speedup.toFixed(1)}×`,
    verdict: speedup === undefined ? "skipped" : speedup >= TARGETS.authSpeedup ? "PASS" : "MISS",
    summary:
      speedup === undefined
        ? "skipped"
        : `${speedup.toFixed(1)}x/${TARGETS.authSpeedup}x:${speedup >= TARGETS.authSpeedup ? "PASS" : "MISS"}(${(g.authMs * 1000).toFixed(0)}us/${(a.authMs * 1000).toFixed(0)}us)`,
  });
  const size = g && a ? g.bundle.bytes / a.bundle.bytes : undefined;
  rows.push({
    id: "nextjs-proxy-bundle",
    label: "proxy bundle, Gatehouse ÷ next-auth",
    target: `≤ ${TARGETS.bundleRatio}×`,
    value: size,
    shown: size === undefined ? "—" : `${size.toFixed(2)}×`,
    verdict: size === undefined ? "skipped" : size <= TARGETS.bundleRatio ? "PASS" : "MISS",
    summary:
      size === undefined
        ? "skipped"
        : `${size.toFixed(2)}x/<=${TARGETS.bundleRatio}x:${size <= TARGETS.bundleRatio ? "PASS" : "MISS"}(${g.bundle.bytes}/${a.bundle.bytes})`,
  });
  return rows;
}

const fmt = (n) => Math.round(n).toLocaleString("en-US");
const kb = (bytes) => `${(bytes / 1000).toFixed(0)} kB`;

function table(header, rows, right) {
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((r) => r[i].length)));
  const line = (cells) =>
    `| ${cells.map((c, i) => (right[i] ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (right[i] ? `${"-".repeat(w + 1)}:` : "-".repeat(w + 2))).join("|")}|`;
  return [line(header), rule, ...rows.map(line)].join("\n");
}

/** The figures as printed: per app, then the three rows. */
export function nextjsReport(measured) {
  const { results, skipped, settings, load } = measured;
  const lines = [];
  const libs = Object.values(results).filter((r) => !r.bare);
  const perApp = Object.values(results).map((r) => [
    r.label,
    `${fmt(r.floor.rate)} ±${Math.round(r.floor.spread * 100)}%`,
    `${fmt(r.protected.rate)} ±${Math.round(r.protected.spread * 100)}%`,
    `${r.ratio.toFixed(2)}×`,
    r.cpuRatio === undefined
      ? "—"
      : `${fmt(r.floor.cpuUs)} / ${fmt(r.protected.cpuUs)} (${r.cpuRatio.toFixed(2)}×)`,
    kb(r.bundle.bytes),
  ]);
  lines.push(
    table(
      [
        "app",
        "floor req/s",
        "protected req/s",
        "protected ÷ floor",
        "server CPU µs/req, floor / protected (÷)",
        "proxy bundle",
      ],
      perApp,
      [false, true, true, true, true, true],
    ),
  );
  for (const [id, why] of Object.entries(skipped)) lines.push(`${id}: skipped (${why})`);
  lines.push(
    `${settings.rounds} rounds of ${settings.runMs} ms per page, ${settings.connections} keep-alive ` +
      `connections; req/s the median round, ± half the range; protected ÷ floor the median of the ` +
      `per-round ratios (${Object.values(results)
        .map((r) => `${r.name} ${r.ratios.map((x) => x.toFixed(2)).join(", ")}`)
        .join("; ")}); load average ${load.min.toFixed(1)}–${load.max.toFixed(1)}. Server CPU: ` +
      "the server process's CPU time (all threads) over the requests of the median round; (÷) " +
      "is floor CPU ÷ protected CPU, the median over the rounds: the same quotient as the req/s " +
      "one when the server is CPU-bound, and less moved by load from outside it.",
  );
  const us = (ms) => `${(ms * 1000).toFixed(0)} µs`;
  const cpuCell = (n) => `${n.toFixed(0)} µs`;
  const authRows = libs.map((r) => [
    r.label,
    us(r.authMs),
    cpuCell(netCpu(r, "auth")),
    us(r.freshMs),
    cpuCell(netCpu(r, "fresh")),
    `${us(r.cookiesMs)} / ${cpuCell(netCpu(r, "cookies"))}`,
    `${us(r.headersMs)} / ${cpuCell(netCpu(r, "headers"))}`,
    `${us(r.emptyMs)} / ${cpuCell(r.emptyCpuUs)}`,
  ]);
  const [ah, gh] = [results["next-auth"], results.gatehouse];
  if (ah && gh) {
    authRows.push([
      "next-auth ÷ Gatehouse",
      `${(ah.authMs / gh.authMs).toFixed(1)}×`,
      `${(netCpu(ah, "auth") / netCpu(gh, "auth")).toFixed(1)}×`,
      `${(ah.freshMs / gh.freshMs).toFixed(1)}×`,
      `${(netCpu(ah, "fresh") / netCpu(gh, "fresh")).toFixed(1)}×`,
      "",
      "",
      "",
    ]);
  }
  lines.push("");
  lines.push(
    table(
      [
        "await auth() in a route handler",
        "median",
        "CPU",
        "fresh sessions: median",
        "CPU",
        "cookies() alone: median / CPU",
        "headers() alone: median / CPU",
        "nothing: median / CPU",
      ],
      authRows,
      [false, true, true, true, true, true, true, true],
    ),
  );
  lines.push(
    `Medians of ${libs[0]?.authCalls ?? 0} calls per app, one a request, requests one after ` +
      "another, timed in the server with performance.now(); CPU: the server process's CPU time " +
      "over the call (all threads), less that of timing nothing (the last column: reading the " +
      "CPU time costs some itself). Fresh sessions: a session never sent before on every call " +
      "(minted with @auth/core's encode, the apps' secret), so nothing decrypted earlier can be " +
      "remembered. cookies() alone: reading the cookie with Next's cookies(), timed the same way, " +
      "the floor under any auth(); headers() alone: reading the Cookie header with Next's " +
      "headers() instead (what both libraries' auth() starts with).",
  );
  if (results.bare) {
    lines.push(
      "Next.js alone: the same pages with a pass-through proxy and an auth() that reads cookies() " +
        "and answers a fixed user, no library: the ceiling of protected ÷ floor for any library, " +
        "and Next.js's own part of a proxy bundle. Protected page ÷ Next.js alone's protected " +
        `page (median of the rounds; CPU as above): ${libs
          .map(
            (r) => `${r.name} ${r.overBare.rate.toFixed(2)}× (CPU ${r.overBare.cpu.toFixed(2)}×)`,
          )
          .join(", ")}.`,
    );
  }
  for (const r of Object.values(results)) {
    const notes = [];
    if (r.reissued) notes.push("re-issues the session cookie on /protected");
    if (r.readsOther !== undefined) {
      notes.push(`${r.readsOther ? "reads" : "does NOT read"} the other library's session cookie`);
    }
    if (notes.length) lines.push(`${r.name}: ${notes.join("; ")}.`);
    for (const w of r.warnings) lines.push(`${r.name} warned (not an error): ${w}`);
  }
  lines.push("");
  const rows = verdicts(measured);
  lines.push(
    table(
      ["row", "measured", "target", "result"],
      rows.map((r) => [r.label, r.shown, r.target, r.verdict]),
      [false, true, true, false],
    ),
  );
  lines.push("");
  for (const r of Object.values(results)) {
    const b = r.bundle;
    lines.push(
      `${r.name} proxy bundle: ${b.bytes} bytes in ${b.files.length} files ` +
        `(${b.eager} loaded when the proxy starts); without Next.js's own code and the ` +
        `Turbopack runtime (the same in both): ${libraryBytes(b)} bytes. By package:`,
    );
    for (const [who, n] of b.byPackage) lines.push(`  ${String(n).padStart(9)}  ${who}`);
  }
  const { bare, gatehouse, "next-auth": nextAuth } = results;
  if (bare && gatehouse && nextAuth) {
    const over = (r) => r.bundle.bytes - bare.bundle.bytes;
    const eager = (r) => r.bundle.eager - bare.bundle.eager;
    lines.push(
      `Proxy bundle over Next.js alone's (${bare.bundle.bytes} bytes), Gatehouse ÷ next-auth: ` +
        `${(over(gatehouse) / over(nextAuth)).toFixed(2)}× (${over(gatehouse)} / ${over(nextAuth)} bytes); ` +
        `loaded when the proxy starts: ${(eager(gatehouse) / eager(nextAuth)).toFixed(2)}× ` +
        `(${eager(gatehouse)} / ${eager(nextAuth)}) (info)`,
    );
  }
  const library = libraryRatio(measured);
  if (library !== undefined) {
    lines.push(
      `Proxy bundle without Next.js's own code and the Turbopack runtime, Gatehouse ÷ next-auth: ` +
        `${library.toFixed(2)}× (info)`,
    );
  }
  return lines.join("\n");
}

/** The CPU µs of a timed call (`auth`, `fresh`, `cookies`) less that of timing nothing. */
const netCpu = (r, what) => r[`${what}CpuUs`] - r.emptyCpuUs;

/** What Next.js puts in every proxy bundle, whatever the library. */
const NOT_LIBRARY = new Set(["next", "(Turbopack runtime)"]);

/** The proxy bundle's bytes but Next.js's own code and the Turbopack runtime. */
const libraryBytes = (bundle) =>
  bundle.byPackage.reduce((n, [who, bytes]) => n + (NOT_LIBRARY.has(who) ? 0 : bytes), 0);

function libraryRatio({ results }) {
  const g = results.gatehouse;
  const a = results["next-auth"];
  return g && a ? libraryBytes(g.bundle) / libraryBytes(a.bundle) : undefined;
}

/** `BENCH 3/3 pass nextjs-protected-page=…` */
export function nextjsSummary(measured) {
  const rows = verdicts(measured);
  const passed = rows.filter((r) => r.verdict === "PASS").length;
  const entries = rows.map((r) => `${r.id}=${r.summary}`);
  const library = libraryRatio(measured);
  if (library !== undefined) {
    const { gatehouse, "next-auth": a } = measured.results;
    entries.push(
      `nextjs-proxy-library=${library.toFixed(2)}x:info(${libraryBytes(gatehouse.bundle)}/${libraryBytes(a.bundle)})`,
    );
  }
  const { gatehouse: gh, "next-auth": na, bare } = measured.results;
  if (gh && na) {
    const [g, a] = [netCpu(gh, "auth"), netCpu(na, "auth")];
    entries.push(
      `nextjs-auth-cpu=${(a / g).toFixed(1)}x:info(${g.toFixed(0)}us/${a.toFixed(0)}us)`,
    );
    entries.push(
      `nextjs-auth-fresh=${(na.freshMs / gh.freshMs).toFixed(1)}x:info(${(gh.freshMs * 1000).toFixed(0)}us/${(na.freshMs * 1000).toFixed(0)}us)`,
    );
  }
  if (gh && na && bare) {
    const over = (r) => r.bundle.bytes - bare.bundle.bytes;
    entries.push(
      `nextjs-proxy-over-next=${(over(gh) / over(na)).toFixed(2)}x:info(${over(gh)}/${over(na)})`,
    );
  }
  for (const [id, r] of Object.entries(measured.results)) {
    if (r.overBare) {
      entries.push(
        `nextjs-page-vs-bare-${id}=${r.overBare.rate.toFixed(2)}x:info(cpu${r.overBare.cpu.toFixed(2)}x)`,
      );
    }
    entries.push(`nextjs-page-ratio-${id}=${r.ratio.toFixed(2)}x:info`);
    if (r.cpuRatio !== undefined) {
      entries.push(`nextjs-page-cpu-ratio-${id}=${r.cpuRatio.toFixed(2)}x:info`);
    }
  }
  return { passed, total: rows.length, entries };
}

export function nextjsOptions(env = process.env) {
  return {
    rounds: Number(env.NEXTJS_ROUNDS ?? 12),
    runMs: Number(env.NEXTJS_RUN_MS ?? 1000),
    warmupMs: Number(env.NEXTJS_WARMUP_MS ?? 3000),
    connections: Number(env.NEXTJS_CONNECTIONS ?? 8),
    authCalls: Number(env.NEXTJS_AUTH_CALLS ?? 600),
    only: env.NEXTJS_APPS?.split(","),
  };
}

const isMain = process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href;

if (isMain && process.argv[2] === "--load-generator") {
  loadGenerator();
} else if (isMain) {
  console.log(
    `node ${process.version}, next ${version("next")}, ${availableParallelism()} CPU(s) ` +
      `(${cpus()[0]?.model ?? "unknown CPU"}); load average ${loadavg()
        .map((n) => n.toFixed(2))
        .join(" ")}`,
  );
  const started = performance.now();
  try {
    const measured = await nextjsBench(nextjsOptions());
    console.log();
    console.log(nextjsReport(measured));
    const { passed, total, entries } = nextjsSummary(measured);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`BENCH ${passed}/${total} pass ${entries.join(" ")} ${seconds}s`);
  } catch (error) {
    console.error(error instanceof CheckFailed ? `bench check failed: ${error.message}` : error);
    process.exit(1);
  }
}
