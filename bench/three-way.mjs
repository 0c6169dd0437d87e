/**
 * Gatehouse beside @auth/core and Better Auth 1.7 on the work all three do: a session check with a
 * valid cookie, in process and over a real `node:http` server with keep-alive, with the session in
 * the cookie and read from an in-memory store (see `three-way-contenders.mjs` for what each
 * contender runs). Every contender is checked before it is timed, all are warmed up together,
 * then each group is timed in interleaved slices (`harness.mjs`), all in this one process.
 *
 * Writes the figures to `bench/results.json` and draws `bench/chart.svg` from them
 * (`chart.mjs`). Part of `npm run bench` (last), and runnable alone: `node bench/three-way.mjs`
 * (knobs: BENCH_BUDGET_MS, half the timed ms per contender per group, default 1500, so 3000 ms
 * as in `npm run bench`, which gives these rows twice the budget of the others;
 * BENCH_VS_WARMUP_MS, the warm-up of all contenders together, default three times
 * BENCH_WARMUP_MS, so 48000: it is shared by 18 operations, and Better Auth's session check
 * still gets faster after 2–3 s of running).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import { renderChart } from "./chart.mjs";
import { CheckFailed, check, recordingLogger } from "./check.mjs";
import { USER } from "./contenders.mjs";
import { checkDatabaseSession } from "./database.mjs";
import { compare, median, warmUp } from "./harness.mjs";
import { LIBRARIES, threeWayGroups } from "./three-way-contenders.mjs";

export const HTTP_CLIENT =
  "a node:http Agent with keepAlive and maxSockets 1 per server, in the bench's own process " +
  "(client and server share one thread), one request at a time";

const here = (name) => fileURLToPath(new URL(name, import.meta.url));

/** The installed version of a package, from the bench's or the workspace's node_modules. */
function version(name) {
  for (const dir of ["./node_modules/", "../node_modules/"]) {
    try {
      return JSON.parse(readFileSync(here(`${dir}${name}/package.json`), "utf8")).version;
    } catch {}
  }
  return "unknown";
}

/** The stores' own checks: what each library reads for one session check, and that none writes. */
async function checkStores(libs) {
  const notes = [];
  for (const key of ["gatehouse", "authjs"]) {
    const lib = libs[key].database.probe;
    notes.push(`${lib.name}: ${await checkDatabaseSession(lib, "adapter call")}`);
  }
  const cached = await libs.betterAuth.cookie.probe();
  check(cached.session?.user?.name === USER.name, "Better Auth (cookie cache): no session user");
  check(
    cached.calls.length === 0,
    `Better Auth (cookie cache): read the store (${cached.calls.join(", ")})`,
  );
  const stored = await libs.betterAuth.database.probe();
  check(stored.session?.user?.name === USER.name, "Better Auth (database): no session user");
  check(stored.writes.length === 0, `Better Auth: wrote inside updateAge (${stored.writes})`);
  check(stored.calls.length > 0, "Better Auth (database): the session was not read from the store");
  notes.push(`Better Auth: cookie cache 0 adapter calls, without ${stored.calls.join(", ")}`);
  return notes;
}

/** One untimed call of a contender; returns a note for the log. */
async function checkContender(c) {
  if (c.get) {
    const { status, headers, body } = await c.get();
    check(status === 200, `${c.label}: status ${status}, expected 200`);
    let parsed;
    try {
      parsed = JSON.parse(body);
    } catch {
      throw new CheckFailed(`${c.label}: the answer is not JSON`);
    }
    if (c.id === "floor") return "200";
    check(parsed?.user?.email === USER.email, `${c.label}: the answer has no session user`);
    check(parsed.user.name === USER.name, `${c.label}: the session user has the wrong name`);
    return `${headers["set-cookie"]?.length ?? 0} Set-Cookie`;
  }
  const input = await c.op.prepare();
  const session = await c.op.run(input);
  check(session.user.name === USER.name, `${c.label}: the session user has the wrong name`);
  return "user";
}

/** Median over the slices of `a`'s rate / `b`'s rate (slice i of each ran back to back). */
function paired(result, a, b) {
  if (!result[a] || !result[b]) return undefined;
  return median(result[a].rates.map((rate, i) => rate / result[b].rates[i]));
}

const round = (n, digits) => (n === undefined ? undefined : Number(n.toFixed(digits)));

/**
 * Checks, warms and times the four groups; returns the results object that `results.json`
 * holds. Throws `CheckFailed` if a check fails or a library logs an error.
 */
export async function threeWay({ budgetMs, warmupMs, slices = 30, log, command }) {
  const before = loadavg();
  const { groups, libs, close } = await threeWayGroups(log.logger);
  try {
    const storeNotes = await checkStores(libs);
    log.assertClean("the three-way store checks");
    console.log(`checked three-way stores (${storeNotes.join("; ")})`);
    for (const group of groups) {
      const notes = [];
      for (const c of group.contenders) notes.push(`${c.id}: ${await checkContender(c)}`);
      log.assertClean(group.id);
      console.log(`checked ${group.id} (${notes.join("; ")})`);
    }
    await warmUp(
      groups.flatMap((g) => g.contenders.map((c) => c.op)),
      { totalMs: warmupMs },
    );
    log.assertClean("the warm-up of the three-way scenarios");
    const measured = [];
    for (const group of groups) {
      const ops = Object.fromEntries(group.contenders.map((c) => [c.id, c.op]));
      const result = await compare(ops, { budgetMs, slices, warmupMs: 200, baseline: "authjs" });
      log.assertClean(group.id);
      measured.push({
        id: group.id,
        title: group.title,
        contenders: group.contenders.map((c) => ({
          id: c.id,
          library: LIBRARIES[c.id] ?? null,
          label: c.label,
          info: Boolean(c.info),
          opsPerSec: round(result[c.id].opsPerSec, 1),
          rsd: round(result[c.id].rsd, 3),
          cpuUsPerOp: round(result[c.id].cpuUsPerOp, 1),
          vsAuthjs: c.id === "authjs" ? 1 : round(result.ratios[c.id], 3),
          vsBetterAuth: c.id === "better-auth" ? 1 : round(paired(result, c.id, "better-auth"), 3),
        })),
      });
    }
    // The cookie cache lasts 5 minutes: had it run out, the timed calls would have read the store.
    const after = await libs.betterAuth.cookie.probe();
    check(after.calls.length === 0, "Better Auth: its cookie cache ran out during the timed run");
    log.assertClean("the three-way checks after timing");
    return {
      meta: {
        generated: new Date().toISOString(),
        command,
        node: process.version,
        cpus: availableParallelism(),
        cpu: cpus()[0]?.model ?? "unknown CPU",
        loadavg: {
          before: before.map((n) => round(n, 2)),
          after: loadavg().map((n) => round(n, 2)),
        },
        budgetMs,
        slices,
        warmupMs,
        httpClient: HTTP_CLIENT,
        versions: Object.fromEntries(
          ["@gatehousejs/core", "@auth/core", "better-auth"].map((n) => [n, version(n)]),
        ),
      },
      groups: measured,
    };
  } finally {
    await close();
  }
}

const fmtOps = (n) => `${Math.round(n).toLocaleString("en-US")}`;
const fmtRatio = (r) => (r === undefined || r === null ? "—" : `${r.toFixed(2)}×`);

/** The results as a Markdown table, for the console and for RESULTS.md. */
export function threeWayTable(results) {
  const header = ["contender", "ops/s", "µs/op", "CPU µs/op", "vs @auth/core", "vs Better Auth"];
  const rows = [];
  for (const group of results.groups) {
    rows.push([`**${group.title}**`, "", "", "", "", ""]);
    for (const c of group.contenders) {
      rows.push([
        `${c.info ? "(info) " : ""}${c.label}`,
        `${fmtOps(c.opsPerSec)} ±${Math.round(c.rsd * 100)}%`,
        (1e6 / c.opsPerSec).toFixed(1),
        c.cpuUsPerOp.toFixed(1),
        fmtRatio(c.vsAuthjs),
        fmtRatio(c.vsBetterAuth),
      ]);
    }
  }
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((r) => r[i].length)));
  const line = (cells) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`;
  return [line(header), rule, ...rows.map(line)].join("\n");
}

/** Writes `results.json` and draws `chart.svg` from it. */
export function writeThreeWay(results) {
  writeFileSync(here("./results.json"), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(here("./chart.svg"), renderChart(results));
  console.log("wrote bench/results.json and bench/chart.svg");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const budgetMs = Number(process.env.BENCH_BUDGET_MS ?? 1500) * 2;
  const warmupMs = Number(
    process.env.BENCH_VS_WARMUP_MS ?? Number(process.env.BENCH_WARMUP_MS ?? 16_000) * 3,
  );
  const log = recordingLogger();
  console.log(
    `node ${process.version}, ${availableParallelism()} CPU(s); load average ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")}; ${budgetMs} ms per contender per group after ${warmupMs} ms of warm-up`,
  );
  threeWay({ budgetMs, warmupMs, log, command: "node bench/three-way.mjs" })
    .then((results) => {
      console.log();
      console.log(threeWayTable(results));
      writeThreeWay(results);
    })
    .catch((error) => {
      console.error(error instanceof CheckFailed ? `bench check failed: ${error.message}` : error);
      process.exit(1);
    });
}
