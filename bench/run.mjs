/**
 * `npm run bench`: Gatehouse against @auth/core, side by side in one process.
 *
 * Each scenario is checked once per library before it is timed, so a library answering with an
 * error cannot look fast; a failed check exits non-zero. A missed target prints MISS and still
 * exits 0. Environment knobs: BENCH_BUDGET_MS (timed ms per library per scenario, default 1500)
 * and BENCH_WARMUP_MS (warm-up of both libraries on every scenario before any timing, default
 * 16000: @auth/core has far more code for V8 to optimise, and a short warm-up flatters Gatehouse).
 */
import { availableParallelism, cpus } from "node:os";
import { contenders, SALT, sessionRequest, USER } from "./contenders.mjs";
import { compare, warmUp } from "./harness.mjs";

const budgetMs = Number(process.env.BENCH_BUDGET_MS ?? 1500);
const warmupMs = Number(process.env.BENCH_WARMUP_MS ?? 16_000);
const slices = 30;

class CheckFailed extends Error {}

function check(condition, message) {
  if (!condition) throw new CheckFailed(message);
}

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

async function main() {
  if (!globalThis.crypto?.subtle) throw new Error("globalThis.crypto is missing: use Node 20+");
  const started = performance.now();
  const libs = await contenders();
  const gatehouse = libs.Gatehouse;
  const authjs = libs["@auth/core"];

  // The shared wire format, once: Gatehouse reads a session token minted by @auth/core.
  check(
    (await gatehouse.decodeToken(authjs.cookie))?.sub === USER.sub,
    "Gatehouse cannot read a session token minted by @auth/core",
  );

  const cpu = cpus()[0]?.model ?? "unknown CPU";
  console.log(
    `node ${process.version}, ${availableParallelism()} CPU(s) (${cpu}); ` +
      `${budgetMs} ms per library per scenario in ${slices} interleaved slices, ` +
      `after ${warmupMs} ms of warm-up over all scenarios`,
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

  const rows = [];
  const summary = [];
  for (const s of scenarios) {
    const result = await compare(
      { Gatehouse: gatehouse[s.op], "@auth/core": authjs[s.op] },
      { budgetMs, slices, warmupMs: 200 },
    );
    const g = result.Gatehouse;
    const a = result["@auth/core"];
    const { ratio } = result;
    const verdict = s.target === null ? "info" : ratio >= s.target ? "PASS" : "MISS";
    rows.push([
      s.label,
      `${fmtOps(g.opsPerSec)} ${fmtRsd(g.rsd)}`,
      `${fmtOps(a.opsPerSec)} ${fmtRsd(a.rsd)}`,
      `${ratio.toFixed(1)}×`,
      s.target === null ? "—" : `≥ ${s.target}×`,
      verdict,
    ]);
    const goal = s.target === null ? "" : `/${s.target}x`;
    summary.push(
      `${s.id}=${ratio.toFixed(1)}x${goal}:${verdict}` +
        `(${Math.round(g.opsPerSec)}/${Math.round(a.opsPerSec)})`,
    );
  }

  // What a server pays per request with either library, outside the timed calls above.
  const fixed = await compare(
    {
      request: () => sessionRequest(gatehouse.cookie),
      body: { prepare: () => new Response("null"), run: (response) => response.text() },
    },
    { budgetMs: 300, slices: 2, warmupMs: 100 },
  );
  const us = (r) => (1e6 / r.opsPerSec).toFixed(1);
  console.log(
    `not timed above (the same for both): new Request ${us(fixed.request)} µs, ` +
      `reading a small Response body ${us(fixed.body)} µs`,
  );

  console.log();
  console.log(table(rows));
  console.log(
    "ops/s: median of the slices, ± their relative spread; ratio: median of the per-slice ratios.",
  );
  console.log(
    "* end to end = new Request + Auth() + reading the body; rows above time Auth() alone.",
  );
  console.log();
  const passed = summary.filter((s) => s.includes(":PASS")).length;
  const targeted = scenarios.filter((s) => s.target !== null).length;
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`BENCH ${passed}/${targeted} pass ${summary.join(" ")} ${seconds}s`);
}

main().catch((error) => {
  console.error(error instanceof CheckFailed ? `bench check failed: ${error.message}` : error);
  process.exit(1);
});
