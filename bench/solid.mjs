/**
 * `getSession()` of the SolidStart integrations, the cost of every server-rendered page:
 * `@gatehousejs/solid-start` against `@auth/solid-start` 0.19.2 (on the `@auth/core` 0.41.2 it
 * pins), in one process, on a valid JWT session cookie.
 *
 * Part of `npm run bench` (run.mjs calls `solidScenario`), and runnable alone:
 * `node bench/solid.mjs` (pinned: `taskset -c 0 node bench/solid.mjs`). Knobs: BENCH_BUDGET_MS
 * (timed ms per library, default 1500) and BENCH_SOLID_WARMUP_MS (warm-up of both before timing,
 * default a quarter of BENCH_WARMUP_MS, so 4000).
 *
 * Same configuration for both: same secret, `trustHost: true`, one Credentials provider, JWT
 * sessions, the default prefix `/api/auth`. @auth/solid-start never turns its prefix into core's
 * `basePath` (which defaults to `/auth`) and its `getSession` asks `/api/auth/session`, so its
 * configuration also names `basePath: "/api/auth"`: without it every call throws.
 */
import { pathToFileURL } from "node:url";
import { getSession as authjsGetSession } from "@auth/solid-start";
import AuthjsCredentials from "@auth/solid-start/providers/credentials";
import { decode as gatehouseDecode, encode as gatehouseEncode } from "@gatehousejs/core/jwt";
import { getSession as gatehouseGetSession } from "@gatehousejs/solid-start";
import GatehouseCredentials from "@gatehousejs/solid-start/providers/credentials";
import { CheckFailed, check } from "./check.mjs";
import { compare, warmUp } from "./harness.mjs";

const SECRET = "bench-secret-0123456789abcdef0123456789abcdef";
const SALT = "authjs.session-token";
const ORIGIN = "http://localhost:3000";
const USER = {
  name: "Ada Lovelace",
  email: "ada@example.com",
  picture: "https://example.com/ada.png",
  sub: "3f1c2d4e-0000-4000-8000-000000000001",
};

const credentials = {
  credentials: { email: { label: "Email", type: "email" }, password: { type: "password" } },
  authorize: async ({ email }) => ({ id: USER.sub, name: USER.name, email: String(email) }),
};

/** A server-rendered page's request, as the server hands it over: built outside the clock. */
const pageRequest = (cookie) =>
  new Request(`${ORIGIN}/account`, {
    headers: { cookie: `${SALT}=${cookie}`, accept: "text/html" },
  });

export const solidRow = {
  id: "solid-getsession",
  label: "SolidStart getSession(request), valid JWT cookie ‡",
  target: 30,
};

/** The two contenders; the cookie is one token, minted once, that both read. */
export async function solidContenders() {
  const cookie = await gatehouseEncode({ token: USER, secret: SECRET, salt: SALT });
  const { iat } = await gatehouseDecode({ token: cookie, secret: SECRET, salt: SALT });
  const gatehouseConfig = {
    secret: SECRET,
    trustHost: true,
    providers: [GatehouseCredentials(credentials)],
  };
  const authjsConfig = {
    secret: SECRET,
    trustHost: true,
    basePath: "/api/auth",
    providers: [AuthjsCredentials(credentials)],
  };
  return {
    cookie,
    issuedAt: iat,
    Gatehouse: {
      name: "@gatehousejs/solid-start",
      getSession: () => gatehouseGetSession(pageRequest(cookie), gatehouseConfig),
      op: {
        prepare: () => pageRequest(cookie),
        run: (request) => gatehouseGetSession(request, gatehouseConfig),
      },
    },
    "@auth/solid-start": {
      name: "@auth/solid-start",
      getSession: () => authjsGetSession(pageRequest(cookie), authjsConfig),
      op: {
        prepare: () => pageRequest(cookie),
        run: (request) => authjsGetSession(request, authjsConfig),
      },
    },
  };
}

const MAX_AGE_MS = 30 * 86_400_000;

/**
 * Both must return the same session: the same keys and the same user. `expires` follows each
 * library's documented rule (docs/compat.md): Gatehouse reports the expiry the cookie has (its
 * `iat` + maxAge, until it is re-issued), Auth.js now + maxAge on every read; each is checked
 * against its rule to the second.
 */
export async function checkSameSession(libs) {
  const calledAt = Date.now();
  const g = await libs.Gatehouse.getSession();
  const a = await libs["@auth/solid-start"].getSession();
  const answeredAt = Date.now();
  for (const [who, s] of [
    ["Gatehouse", g],
    ["@auth/solid-start", a],
  ]) {
    check(s?.user?.email === USER.email, `${who}: getSession returned no session user`);
    check(typeof s.expires === "string", `${who}: the session has no expires`);
  }
  const keys = (o) => JSON.stringify(Object.keys(o).sort());
  check(keys(g) === keys(a), `the sessions differ in their keys: ${keys(g)} vs ${keys(a)}`);
  check(
    JSON.stringify(g.user) === JSON.stringify(a.user),
    `the session users differ: ${JSON.stringify(g.user)} vs ${JSON.stringify(a.user)}`,
  );
  const gExpires = Date.parse(g.expires);
  const issuedAt = libs.issuedAt * 1000;
  check(
    Math.abs(gExpires - (issuedAt + MAX_AGE_MS)) <= 1000,
    `Gatehouse: expires ${g.expires} is not the cookie's iat + 30 days`,
  );
  const aExpires = Date.parse(a.expires);
  check(
    aExpires >= calledAt + MAX_AGE_MS - 1000 && aExpires <= answeredAt + MAX_AGE_MS + 1000,
    `@auth/solid-start: expires ${a.expires} is not now + 30 days`,
  );
  return `same user ${JSON.stringify(g.user)}, expires as each documents it`;
}

/**
 * Checks, warms up and times the pair; returns the row for run.mjs's table. `warmupMs` of both
 * together in alternating slices, then `budgetMs` each in 30 interleaved slices.
 */
export async function solidScenario({ budgetMs, warmupMs }) {
  const libs = await solidContenders();
  console.log(`checked ${solidRow.id} (${await checkSameSession(libs)})`);
  const ops = { Gatehouse: libs.Gatehouse.op, "@auth/solid-start": libs["@auth/solid-start"].op };
  await warmUp(Object.values(ops), { totalMs: warmupMs });
  const result = await compare(ops, { budgetMs, slices: 30, warmupMs: 200 });
  // Checked again after timing: a library that broke under load must not be reported as fast.
  await checkSameSession(libs);
  return { ...solidRow, g: result.Gatehouse, a: result["@auth/solid-start"], ratio: result.ratio };
}

async function main() {
  const budgetMs = Number(process.env.BENCH_BUDGET_MS ?? 1500);
  const warmupMs = Number(
    process.env.BENCH_SOLID_WARMUP_MS ?? Number(process.env.BENCH_WARMUP_MS ?? 16_000) / 4,
  );
  const started = performance.now();
  console.log(
    `node ${process.version}; ${budgetMs} ms per library in 30 interleaved slices after ` +
      `${warmupMs} ms of warm-up`,
  );
  const row = await solidScenario({ budgetMs, warmupMs });
  const ops = (r) =>
    `${Math.round(r.opsPerSec).toLocaleString("en-US")} ±${(r.rsd * 100).toFixed(0)}%`;
  const verdict = row.ratio >= row.target ? "PASS" : "MISS";
  const us = (r) => (1e6 / r.opsPerSec).toFixed(1);
  console.log();
  console.log(`| scenario | Gatehouse ops/s | @auth/solid-start ops/s | ratio | target | result |`);
  console.log(`|---|---:|---:|---:|---:|---|`);
  console.log(
    `| ${row.label} | ${ops(row.g)} | ${ops(row.a)} | ${row.ratio.toFixed(1)}× | ≥ ${row.target}× | ${verdict} |`,
  );
  console.log(`per call: Gatehouse ${us(row.g)} µs, @auth/solid-start ${us(row.a)} µs`);
  console.log("‡ @gatehousejs/solid-start vs @auth/solid-start 0.19.2 (on @auth/core 0.41.2)");
  console.log();
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const figures = `${Math.round(row.g.opsPerSec)}/${Math.round(row.a.opsPerSec)}`;
  console.log(
    `BENCH ${verdict === "PASS" ? 1 : 0}/1 pass ${row.id}=${row.ratio.toFixed(1)}x/${row.target}x:${verdict}(${figures}) ${seconds}s`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((error) => {
    console.error(error instanceof CheckFailed ? `bench check failed: ${error.message}` : error);
    process.exit(1);
  });
}
