/**
 * `npm run bench`: Gatehouse against @auth/core, side by side in one process.
 *
 * Each scenario is checked once per library before it is timed, so a library answering with an
 * error cannot look fast; a failed check exits non-zero, and so does an error either library
 * logs while it is timed. A missed target prints MISS and still exits 0, and so does a store
 * server that cannot be reached (its rows say "skipped"). Environment knobs: BENCH_BUDGET_MS
 * (timed ms per library per scenario, default 1500), BENCH_WARMUP_MS (warm-up of both libraries
 * on the JWT scenarios before any timing, default 16000: @auth/core has far more code for V8 to
 * optimise, and a short warm-up flatters Gatehouse); the database and OAuth scenarios then get
 * another half of it and the store scenarios another quarter (BENCH_IO_WARMUP_MS and
 * BENCH_STORE_WARMUP_MS override those), and DATABASE_URL / REDIS_URL name the stores. The
 * SolidStart getSession row (solid.mjs) gets BENCH_SOLID_WARMUP_MS (default a quarter of
 * BENCH_WARMUP_MS) of warm-up of its own: it runs another copy of @auth/core. The three-way rows
 * beside Better Auth (three-way.mjs) come last, after BENCH_VS_WARMUP_MS (default three times
 * BENCH_WARMUP_MS) of warm-up of their own, and are written to bench/results.json and drawn in
 * bench/chart.svg. Then the HTTP session check against the floor of `node:http` (http-session.mjs,
 * knobs HTTP_*), and the edge bundle.
 */
import { availableParallelism, cpus } from "node:os";
import { CheckFailed, check, recordingLogger } from "./check.mjs";
import { contenders, SALT, sessionRequest, USER } from "./contenders.mjs";
import { checkDatabaseSession, memoryContenders } from "./database.mjs";
import { compare, warmUp } from "./harness.mjs";
import { oauthContenders } from "./oauth.mjs";
import { startProvider } from "./oauth-provider.mjs";
import { openStores } from "./stores.mjs";

const budgetMs = Number(process.env.BENCH_BUDGET_MS ?? 1500);
const warmupMs = Number(process.env.BENCH_WARMUP_MS ?? 16_000);
const ioWarmupMs = Number(process.env.BENCH_IO_WARMUP_MS ?? warmupMs / 2);
const storeWarmupMs = Number(process.env.BENCH_STORE_WARMUP_MS ?? warmupMs / 4);
const solidWarmupMs = Number(process.env.BENCH_SOLID_WARMUP_MS ?? warmupMs / 4);
// Three times the JWT warm-up: it is shared by 18 operations, and Better Auth, new to V8 here,
// keeps getting faster for its first few seconds of running.
const vsWarmupMs = Number(process.env.BENCH_VS_WARMUP_MS ?? warmupMs * 3);
const slices = 30;

function json(body, who) {
  try {
    return JSON.parse(body);
  } catch {
    throw new CheckFailed(`${who}: the session body is not JSON`);
  }
}

/** One untimed call of a `{ prepare, run }` op, with the body read. */
async function call(op) {
  const response = await op.run(op.prepare());
  return { response, body: await response.text() };
}

async function checkSignedIn(lib) {
  const { response, body } = await call(lib.sessionWithCookie);
  check(response.status === 200, `${lib.name}: status ${response.status}, expected 200`);
  const session = json(body, lib.name);
  check(session?.user?.email === USER.email, `${lib.name}: the session has no user`);
  check(session.user.name === USER.name, `${lib.name}: the session user has the wrong name`);
  const reissued = response.headers.getSetCookie().some((c) => c.startsWith(`${SALT}=`));
  return reissued ? "re-issues the cookie" : "no Set-Cookie";
}

async function checkSignedOut(lib) {
  const { response, body } = await call(lib.sessionNoCookie);
  check(response.status === 200, `${lib.name}: status ${response.status}, expected 200`);
  const session = json(body, lib.name);
  check(!session?.user, `${lib.name}: a session without a cookie has a user`);
  return `body ${body}`;
}

/** The four scenarios with a target, then two end-to-end figures for information (no target). */
const scenarios = [
  {
    id: "session-valid-cookie",
    label: "GET /auth/session, valid JWT cookie",
    target: 20,
    op: "sessionWithCookie",
    check: checkSignedIn,
  },
  {
    id: "session-no-cookie",
    label: "GET /auth/session, no cookie",
    target: 10,
    op: "sessionNoCookie",
    check: checkSignedOut,
  },
  {
    id: "decode",
    label: "decode(session token)",
    target: 20,
    op: "decode",
    async check(lib) {
      const payload = await lib.decode();
      for (const key of Object.keys(USER)) {
        check(payload?.[key] === USER[key], `${lib.name}: decode lost the "${key}" claim`);
      }
      check(typeof payload.exp === "number", `${lib.name}: decode returned no exp`);
      return "payload round-trips";
    },
  },
  {
    id: "encode",
    label: "encode({name,email,picture,sub})",
    target: 10,
    op: "encode",
    async check(lib) {
      const token = await lib.encode();
      check(typeof token === "string" && token.split(".").length === 5, `${lib.name}: not a JWE`);
      return `${token.length}-char JWE`;
    },
  },
  {
    id: "e2e-session-valid-cookie",
    label: "end to end*: valid JWT cookie",
    target: null,
    op: "sessionWithCookieEndToEnd",
    check: checkSignedIn,
  },
  {
    id: "e2e-session-no-cookie",
    label: "end to end*: no cookie",
    target: null,
    op: "sessionNoCookieEndToEnd",
    check: checkSignedOut,
  },
];

const fmtOps = (n) => Math.round(n).toLocaleString("en-US");
const fmtRsd = (r) => `±${(r * 100).toFixed(0)}%`;

function table(rows) {
  const header = ["scenario", "Gatehouse ops/s", "@auth/core ops/s", "ratio", "target", "result"];
  const lines = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...lines.map((l) => l[i].length)));
  const right = [false, true, true, true, true, false];
  const fmt = (cells) =>
    `| ${cells.map((c, i) => (right[i] ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (right[i] ? `${"-".repeat(w + 1)}:` : "-".repeat(w + 2))).join("|")}|`;
  return [fmt(header), rule, ...rows.map(fmt)].join("\n");
}

/** The table rows and the BENCH summary, filled scenario by scenario. */
function report() {
  const rows = [];
  const summary = [];
  let targeted = 0;
  return {
    rows,
    summary,
    get targeted() {
      return targeted;
    },
    /** A timed row; `a` (the @auth/core figures) and `ratio` may be missing for an info row. */
    add({ id, label, target, g, a, ratio }) {
      if (target !== null) targeted++;
      const verdict = target === null ? "info" : ratio >= target ? "PASS" : "MISS";
      rows.push([
        label,
        `${fmtOps(g.opsPerSec)} ${fmtRsd(g.rsd)}`,
        a ? `${fmtOps(a.opsPerSec)} ${fmtRsd(a.rsd)}` : "—",
        ratio === undefined ? "—" : `${ratio.toFixed(1)}×`,
        target === null ? "—" : `≥ ${target}×`,
        verdict,
      ]);
      const goal = target === null ? "" : `/${target}x`;
      const shown = ratio === undefined ? "-" : `${ratio.toFixed(1)}x`;
      const figures = `${Math.round(g.opsPerSec)}/${a ? Math.round(a.opsPerSec) : "-"}`;
      summary.push(`${id}=${shown}${goal}:${verdict}(${figures})`);
    },
    /** A row measured against a floor, not @auth/core (the HTTP session check): its BENCH entry. */
    againstFloor(entry) {
      targeted++;
      summary.push(entry);
    },
    /** A row measured in bytes, not ops/s (the edge bundle): its BENCH entry only. */
    size({ id, ratio, verdict, figures }) {
      targeted++;
      summary.push(`${id}=${ratio.toFixed(2)}x/<=1x:${verdict}(${figures})`);
    },
    /** A row that could not run: a targeted one still counts, as not passed. */
    skip({ id, label, target, reason }) {
      if (target !== null) targeted++;
      console.log(`skipped: ${reason} (${id})`);
      rows.push([
        label,
        "—",
        "—",
        "—",
        target === null ? "—" : `≥ ${target}×`,
        `skipped: ${reason}`,
      ]);
      summary.push(`${id}=skipped`);
    },
  };
}

/** The JWT scenarios: the first six rows. */
async function jwtScenarios(out) {
  const libs = await contenders();
  const gatehouse = libs.Gatehouse;
  const authjs = libs["@auth/core"];

  // The shared wire format, once: Gatehouse reads a session token minted by @auth/core.
  check(
    (await gatehouse.decodeToken(authjs.cookie))?.sub === USER.sub,
    "Gatehouse cannot read a session token minted by @auth/core",
  );
  for (const s of scenarios) {
    const notes = [];
    for (const lib of [gatehouse, authjs]) notes.push(`${lib.name}: ${await s.check(lib)}`);
    console.log(`checked ${s.id} (${notes.join("; ")})`);
  }
  await warmUp(
    scenarios.flatMap((s) => [gatehouse[s.op], authjs[s.op]]),
    { totalMs: warmupMs },
  );
  for (const s of scenarios) {
    const result = await compare(
      { Gatehouse: gatehouse[s.op], "@auth/core": authjs[s.op] },
      { budgetMs, slices, warmupMs: 200 },
    );
    out.add({ ...s, g: result.Gatehouse, a: result["@auth/core"], ratio: result.ratio });
  }
  return gatehouse.cookie;
}

/**
 * The database session on the memory adapters (issue 3) and the full OAuth callback (issue 4),
 * against the loopback provider. Both pairs are checked, then warmed up together.
 */
async function ioScenarios(out, provider, log) {
  const memory = await memoryContenders({ base: provider.base, logger: log.logger });
  const oauth = oauthContenders(provider.base, log.logger);
  const pairs = [
    {
      id: "session-db-memory",
      label: "GET /auth/session, database session, memory adapter",
      target: 5,
      libs: memory,
      op: "session",
      check: (lib) => checkDatabaseSession(lib, "adapter call"),
    },
    {
      id: "oauth-callback",
      label: "GET /auth/callback: PKCE, token exchange, userinfo, JWT",
      target: 2,
      libs: oauth,
      op: "callback",
      check: (lib) => lib.check(),
    },
  ];
  const before = await provider.stats();
  for (const p of pairs) {
    const notes = [];
    for (const lib of Object.values(p.libs)) notes.push(`${lib.name}: ${await p.check(lib)}`);
    log.assertClean(p.id);
    console.log(`checked ${p.id} (${notes.join("; ")})`);
  }
  const after = await provider.stats();
  check(
    after.token - before.token === 2 && after.userinfo - before.userinfo === 2,
    "the OAuth checks did not reach the provider's token and userinfo endpoints once each",
  );
  await warmUp(
    pairs.flatMap((p) => [p.libs.Gatehouse[p.op], p.libs["@auth/core"][p.op]]),
    { totalMs: ioWarmupMs },
  );
  log.assertClean("the warm-up of the database and OAuth scenarios");
  for (const p of pairs) {
    const result = await compare(
      { Gatehouse: p.libs.Gatehouse[p.op], "@auth/core": p.libs["@auth/core"][p.op] },
      { budgetMs, slices, warmupMs: 200 },
    );
    log.assertClean(p.id);
    out.add({ ...p, g: result.Gatehouse, a: result["@auth/core"], ratio: result.ratio });
  }
  const end = await provider.stats();
  check(end.rejected === 0, `the OAuth provider rejected ${end.rejected} request(s)`);
  check(end.token === end.userinfo, "some OAuth callbacks got a token but asked for no profile");
}

/**
 * The database session on real stores (issue 6): Gatehouse on the PostgreSQL server, on PGlite
 * and on Redis, against @auth/core with @auth/pg-adapter on the same PostgreSQL server.
 */
async function storeScenarios(out, provider, log) {
  const rows = [
    {
      id: "session-db-pg",
      label: "GET /auth/session, database session, PostgreSQL server",
      target: 3,
      store: "pg",
    },
    {
      id: "session-db-pglite",
      label: "  same, Gatehouse on PGlite (vs @auth/core on the server)",
      target: null,
      store: "pglite",
    },
    {
      id: "session-db-redis",
      label: "  same, Gatehouse on Redis (vs @auth/core on the server)",
      target: null,
      store: "redis",
    },
  ];
  const stores = await openStores({ base: provider.base, logger: log.logger });
  try {
    const authjs = stores.pg.authjs;
    const timed = {};
    const notes = [];
    if (authjs) notes.push(`@auth/core pg: ${await checkDatabaseSession(authjs, "query")}`);
    for (const row of rows) {
      const lib = stores[row.store].gatehouse;
      if (!lib) continue;
      const unit = row.store === "redis" ? "command" : "query";
      notes.push(`Gatehouse ${row.store}: ${await checkDatabaseSession(lib, unit)}`);
      timed[row.id] = lib.session;
    }
    log.assertClean("the store checks");
    console.log(`checked session-db-* (${notes.join("; ")})`);
    const baseline = authjs ? "@auth/core" : undefined;
    if (authjs) timed["@auth/core"] = authjs.session;
    await warmUp(Object.values(timed), { totalMs: storeWarmupMs });
    log.assertClean("the warm-up of the store scenarios");
    const result = await compare(timed, { budgetMs, slices, warmupMs: 200, baseline });
    log.assertClean("session-db-*");
    for (const row of rows) {
      const { skipped } = stores[row.store];
      if (skipped) {
        out.skip({ ...row, reason: skipped });
        continue;
      }
      const a = baseline ? result[baseline] : undefined;
      out.add({ ...row, g: result[row.id], a, ratio: result.ratios?.[row.id] });
    }
  } finally {
    await stores.close();
  }
}

async function main() {
  if (!globalThis.crypto?.subtle) throw new Error("globalThis.crypto is missing: use Node 20+");
  const started = performance.now();
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  console.log(
    `node ${process.version}, ${availableParallelism()} CPU(s) (${cpu}); ` +
      `${budgetMs} ms per library per scenario in ${slices} interleaved slices, ` +
      `after ${warmupMs} ms of warm-up over the JWT scenarios, then ${ioWarmupMs} ms over the ` +
      `database and OAuth ones, ${storeWarmupMs} ms over the store ones, ${solidWarmupMs} ms ` +
      `over the SolidStart one and ${vsWarmupMs} ms over the three-way ones`,
  );

  const out = report();
  const cookie = await jwtScenarios(out);
  const provider = await startProvider();
  const log = recordingLogger();
  try {
    await ioScenarios(out, provider, log);
    await storeScenarios(out, provider, log);
    await (await import("./revocation.mjs")).revocationScenarios(out, {
      budgetMs,
      warmupMs: storeWarmupMs,
      log,
    });
    await (await import("./rate-limit.mjs")).rateLimitScenarios(out, {
      // Four times the budget: these rows compare one library with itself and look for a few per
      // cent, which a short run on a shared machine cannot tell from noise.
      budgetMs: budgetMs * 4,
      warmupMs: storeWarmupMs,
      log,
    });
  } finally {
    provider.stop();
  }
  // Last, and imported only now, so that the rows above are timed exactly as before it existed:
  // it loads and warms a second copy of @auth/core (the one @auth/solid-start pins).
  const { solidScenario } = await import("./solid.mjs");
  out.add(await solidScenario({ budgetMs, warmupMs: solidWarmupMs }));

  // After everything else, for the same reason: it loads Better Auth and starts HTTP servers.
  const { threeWay, threeWayTable, writeThreeWay } = await import("./three-way.mjs");
  const vs = await threeWay({
    // Twice the budget: the HTTP rows do a few hundred calls a second on a loaded machine, and
    // a 50 ms slice of them is a handful of calls.
    budgetMs: budgetMs * 2,
    warmupMs: vsWarmupMs,
    slices,
    log: recordingLogger(),
    command: "node bench/run.mjs",
  });

  // After the three-way rows too: it starts its own servers and a second process (its load
  // generator), which keeps the other CPU busy while it runs.
  const { httpSession, httpSessionOptions, httpSessionReport, httpSessionSummary } = await import(
    "./http-session.mjs"
  );
  const http = await httpSession(httpSessionOptions());
  out.againstFloor(httpSessionSummary(http));

  // What a server pays per request with either library, outside the timed calls above.
  const fixed = await compare(
    {
      request: () => sessionRequest(cookie),
      body: { prepare: () => new Response("null"), run: (response) => response.text() },
    },
    { budgetMs: 300, slices: 2, warmupMs: 100 },
  );
  const us = (r) => (1e6 / r.opsPerSec).toFixed(1);
  console.log(
    `not timed above (the same for both): new Request ${us(fixed.request)} µs, ` +
      `reading a small Response body ${us(fixed.body)} µs`,
  );

  // Not timed: bundles both libraries' Workers apps with esbuild and signs in through each
  // bundle, after every timed call, so that the second copy of each library it loads touches none.
  const { edgeBundles, edgeBundleReport } = await import("./edge-bundle.mjs");
  const edge = await edgeBundles();
  const bytes = (lib) => edge.results[lib].min.bytes;
  out.size({
    id: "edge-bundle",
    ratio: edge.ratio,
    verdict: edge.verdict,
    figures: `${bytes("Gatehouse")}/${bytes("@auth/core")}`,
  });

  console.log();
  console.log(table(out.rows));
  console.log(
    "ops/s: median of the slices, ± their relative spread; ratio: median of the per-slice ratios.",
  );
  console.log(
    "* end to end = new Request + Auth() + reading the body; rows above time Auth() alone.",
  );
  console.log(
    "‡ getSession() of @gatehousejs/solid-start vs @auth/solid-start 0.19.2 (on its @auth/core 0.41.2).",
  );
  console.log();
  console.log(threeWayTable(vs));
  console.log("Beside Better Auth: ops/s as above; ratios are medians of paired slices.");
  writeThreeWay(vs);
  console.log();
  console.log("GET /auth/session over node:http with keep-alive (bench/http-session.mjs)");
  console.log(httpSessionReport(http));
  console.log();
  console.log("Edge bundle (bench/edge-bundle.mjs): a credentials + JWT app bundled for Workers");
  console.log(edgeBundleReport(edge));
  console.log();
  const passed = out.summary.filter((s) => s.includes(":PASS")).length;
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`BENCH ${passed}/${out.targeted} pass ${out.summary.join(" ")} ${seconds}s`);
}

main().catch((error) => {
  console.error(error instanceof CheckFailed ? `bench check failed: ${error.message}` : error);
  process.exit(1);
});
