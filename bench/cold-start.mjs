/**
 * `node bench/cold-start.mjs`: what a new serverless instance pays before its first answer.
 *
 * Each run is a fresh `node` process (`cold-start-child.mjs`) that imports one library, configures
 * it with a Credentials provider and answers one request carrying a valid JWT session cookie.
 * Gatehouse and Auth.js alternate run by run (A, B, A, B, ...; the first of each pair alternates
 * too), COLD_RUNS runs each (default 11), and the figures are medians. One untimed run of each
 * case first warms the disk cache.
 *
 * The ratio is the median over the pairs (run i of each side, back to back) of Auth.js's time over
 * Gatehouse's; the columns are the medians of each side.
 *
 * Two clocks, both read with `performance.now()` inside the child, whose origin is the start of
 * the process:
 *   - "library": from the child's first line to the parsed answer: imports, configuration and the
 *     first request. This is what the target is about.
 *   - "process": from process start to the parsed answer, so Node's own start-up (the same for
 *     both) is included. The parent's spawn-to-exit time is printed too, for information.
 *
 * A child that fails, answers another status than 200 or a session without the user stops the
 * run with exit code 1. COLD_ROWS (ids, comma-separated) runs some rows only. A missed target prints MISS and exits 0. Before timing, one Gatehouse child
 * runs with a loader hook that lists every module it loads: loading `jose`, `oauth4webapi`,
 * `@simplewebauthn/server`, the sign-in pages or the OAuth flows for a session check fails the
 * run. The listing counts files; for Gatehouse's bundled packages it also counts the source
 * modules those files hold (read from their source maps).
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { encode } from "@auth/core/jwt";
import { builtModules } from "../packages/core/scripts/dist-sources.mjs";
import { CheckFailed, check } from "./check.mjs";

const run = promisify(execFile);
const runs = Number(process.env.COLD_RUNS ?? 11);
const only = process.env.COLD_ROWS?.split(",");
const child = fileURLToPath(new URL("./cold-start-child.mjs", import.meta.url));
const hooks = fileURLToPath(new URL("./cold-start-hooks.mjs", import.meta.url));

const SECRET = "cold-start-secret-0123456789abcdef0123456789";
const USER = { name: "Ada Lovelace", email: "ada@example.com", sub: "1" };

/** The rows: a Gatehouse case against an Auth.js case, with the target on the library clock. */
const allRows = [
  {
    id: "cold-route",
    label: "import + GET /api/auth/session (SolidAuth route)",
    gatehouse: "gatehouse-route",
    authjs: "authjs-route",
    setting: "framework",
    target: 2,
  },
  {
    id: "cold-route-bare",
    label: "  same, solid-js/web not loaded before",
    gatehouse: "gatehouse-route",
    authjs: "authjs-route",
    setting: "bare",
    target: null,
  },
  {
    id: "cold-getsession",
    label: "import + getSession(request) (server-rendered page)",
    gatehouse: "gatehouse-session",
    authjs: "authjs-session",
    setting: "framework",
    target: null,
  },
  {
    id: "cold-core",
    label: "import + Auth() for /session: @gatehousejs/core vs @auth/core",
    gatehouse: "gatehouse-core",
    authjs: "authjs-core",
    setting: "bare",
    target: null,
  },
];
const rows = only ? allRows.filter((r) => only.includes(r.id)) : allRows;

async function spawnChild([which, setting], env, extraArgs = []) {
  const started = process.hrtime.bigint();
  const { stdout, stderr } = await run(process.execPath, [...extraArgs, child, which, setting], {
    env: { ...process.env, ...env },
    maxBuffer: 16 * 1024 * 1024,
  });
  const wall = Number(process.hrtime.bigint() - started) / 1e6;
  const line = stdout.trim().split("\n").at(-1);
  let out;
  try {
    out = JSON.parse(line);
  } catch {
    throw new CheckFailed(`${which}: the child printed no result (${stderr.trim().slice(0, 300)})`);
  }
  check(out.which === which, `${which}: the child answered for ${out.which}`);
  check(out.status === 200, `${which}: status ${out.status}, expected 200`);
  check(out.email === USER.email, `${which}: the answer has no session user`);
  return { ...out, wall, stderr };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** Packages a session check must never load. */
const forbidden = [
  /\/node_modules\/jose\//,
  /\/node_modules\/oauth4webapi\//,
  /\/node_modules\/@simplewebauthn\//,
];

/**
 * Core's source modules a session check must never load: the sign-in pages and the OAuth flows.
 * dist/ is bundled (packages/core/scripts/bundle.mjs), so a loaded file is read as the source
 * modules its source map names.
 */
const forbiddenSources = [
  /^src\/lib\/pages\/(?!csp\.ts$)/,
  /^src\/lib\/sign-in\/oauth\/(?!method\.ts$)/,
  /^src\/lib\/oauth\/(?!provider\.ts$)/,
];

const packagesDir = fileURLToPath(new URL("../packages/", import.meta.url));

/** The modules a case loads, by package; `strict` fails the run on a forbidden one. */
async function listModules([which, setting], env, strict) {
  const { stderr } = await spawnChild([which, setting], env, ["--import", hooks]);
  const lines = stderr.split("\n");
  const urls = lines
    .slice(lines.indexOf("cold-start-child: the clock starts"))
    .filter((l) => l.startsWith("cold-start-hooks: loaded "))
    .map((l) => l.slice("cold-start-hooks: loaded ".length));
  check(urls.length > 0, `${which}: the loader hook saw no module`);
  const core = builtModules(urls, join(packagesDir, "core"));
  const bad = [
    ...urls.filter((u) => forbidden.some((re) => re.test(u))),
    ...core.flatMap((m) => m.sources).filter((s) => forbiddenSources.some((re) => re.test(s))),
  ];
  if (strict)
    check(bad.length === 0, `${which}: a session check loaded ${bad.slice(0, 3).join(", ")}`);
  const byPackage = new Map();
  // Gatehouse's packages: how many source modules their loaded files hold.
  const sources = new Map();
  for (const u of urls) {
    // The innermost node_modules names the package (@auth/solid-start nests its @auth/core).
    const dep = u.match(/.*node_modules\/((?:@[^/]+\/)?[^/]+)\//);
    const own = u.match(/packages\/([^/]+)\//);
    const builtin = u.startsWith("node:");
    const name = dep ? dep[1] : own ? `@gatehousejs/${own[1]}` : builtin ? "node: builtins" : u;
    byPackage.set(name, (byPackage.get(name) ?? 0) + 1);
    if (own && !dep) {
      const held = builtModules([u], join(packagesDir, own[1])).flatMap((m) => m.sources);
      sources.set(name, (sources.get(name) ?? 0) + held.length);
    }
  }
  const list = [...byPackage]
    .map(([name, n]) => `${name} ${n}${sources.has(name) ? ` (${sources.get(name)} sources)` : ""}`)
    .join(", ");
  return `${urls.length} modules (${list})`;
}

async function main() {
  const cookie = await encode({ token: USER, secret: SECRET, salt: "authjs.session-token" });
  const env = { COLD_COOKIE: cookie, COLD_SECRET: SECRET };
  console.log(
    `node ${process.version}; ${runs} fresh processes per case, Gatehouse and Auth.js alternating`,
  );
  for (const row of rows) {
    for (const [side, strict] of [
      ["gatehouse", true],
      ["authjs", false],
    ]) {
      const modules = await listModules([row[side], row.setting], env, strict);
      console.log(`${row[side]} (${row.setting}) loads ${modules}`);
    }
  }

  const table = [];
  const summary = [];
  let passed = 0;
  let targeted = 0;
  for (const row of rows) {
    const taken = { g: [], a: [] };
    const cases = { g: [row.gatehouse, row.setting], a: [row.authjs, row.setting] };
    await spawnChild(cases.g, env);
    await spawnChild(cases.a, env);
    for (let i = 0; i < runs; i++) {
      const order = i % 2 === 0 ? ["g", "a"] : ["a", "g"];
      for (const side of order) taken[side].push(await spawnChild(cases[side], env));
    }
    const fig = (side) => ({
      library: median(taken[side].map((r) => r.answered - r.start)),
      imports: median(taken[side].map((r) => r.imported - r.start)),
      process: median(taken[side].map((r) => r.answered)),
      wall: median(taken[side].map((r) => r.wall)),
    });
    const g = fig("g");
    const a = fig("a");
    // Run i of each side ran back to back: the median of their quotients cancels slow drift in
    // the machine's load, as the in-process bench's slices do.
    const ratio = median(
      taken.a.map((r, i) => (r.answered - r.start) / (taken.g[i].answered - taken.g[i].start)),
    );
    const verdict = row.target === null ? "info" : ratio >= row.target ? "PASS" : "MISS";
    if (row.target !== null) {
      targeted++;
      if (verdict === "PASS") passed++;
    }
    const ms = (n) => `${n.toFixed(1)} ms`;
    table.push([
      row.label,
      ms(g.library),
      ms(a.library),
      `${ratio.toFixed(2)}×`,
      row.target === null ? "—" : `≥ ${row.target}×`,
      verdict,
      `${ms(g.imports)} / ${ms(a.imports)}`,
      `${ms(g.process)} / ${ms(a.process)}`,
      `${ms(g.wall)} / ${ms(a.wall)}`,
    ]);
    const goal = row.target === null ? "" : `/${row.target}x`;
    summary.push(
      `${row.id}=${ratio.toFixed(2)}x${goal}:${verdict}(${g.library.toFixed(1)}/${a.library.toFixed(1)}ms)`,
    );
  }

  const header = [
    "case (median of fresh processes)",
    "Gatehouse",
    "Auth.js",
    "Auth.js / Gatehouse",
    "target",
    "result",
    "of which imports (G / A)",
    "from process start (G / A)",
    "spawn to exit (G / A)",
  ];
  const lines = [header, ...table];
  const widths = header.map((_, i) => Math.max(...lines.map((l) => l[i].length)));
  const fmt = (cells) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(" | ")} |`;
  console.log();
  console.log(fmt(header));
  console.log(
    `|${widths.map((w, i) => (i === 0 ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`,
  );
  for (const l of table) console.log(fmt(l));
  console.log(
    "Gatehouse and Auth.js: medians, from the child's first line to the parsed answer (imports, " +
      "configuration, first request); ratio: median over back-to-back pairs of Auth.js / Gatehouse.",
  );
  console.log();
  console.log(`BENCH ${passed}/${targeted} pass ${summary.join(" ")}`);
}

main().catch((error) => {
  console.error(error instanceof CheckFailed ? `cold-start check failed: ${error.message}` : error);
  process.exit(1);
});
