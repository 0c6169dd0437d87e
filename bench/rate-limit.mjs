/**
 * What the sign-in rate limits (issue 14) cost, on the default memory store: a credentials
 * sign-in (POST /auth/callback/credentials, the right password, a session cookie issued) with the
 * limits on against the same configuration with `rateLimit: false`, and the JWT session check
 * (GET /auth/session with a valid cookie) the same two ways. Targets: the limiter adds under 5 %
 * to the sign-in (ratio ≥ 0.95) and leaves the session check untouched (ratio ≥ 0.95; the check
 * runs no limiter code at all).
 *
 * The sign-ins come from 65,536 client addresses in turn (X-Forwarded-For through
 * `trustedProxies: 1`, walking 10.0.0.0/16), so the store holds a counter per active client, as on
 * a busy site, and no address comes near its 30 attempts a minute. Before timing, the bench
 * checks that the limiter is really on (31 attempts from one address end in a 429); while timing,
 * that every sign-in was answered with its redirect (a refused one would be timed as speed).
 *
 * Run alone with `node bench/rate-limit.mjs` (BENCH_BUDGET_MS, BENCH_WARMUP_MS), or from run.mjs.
 */
import { pathToFileURL } from "node:url";
import { Auth } from "@gatehousejs/core";
import { encode } from "@gatehousejs/core/jwt";
import Credentials from "@gatehousejs/core/providers/credentials";
import { CheckFailed, check, recordingLogger } from "./check.mjs";
import { ORIGIN, SALT, SECRET, USER } from "./contenders.mjs";
import { compare, warmUp } from "./harness.mjs";

function configWith(rateLimit, logger) {
  return {
    secret: SECRET,
    trustHost: true,
    trustedProxies: 1,
    basePath: "/auth",
    logger,
    ...(rateLimit === false ? { rateLimit: false } : {}),
    providers: [
      Credentials({
        credentials: { email: { label: "Email", type: "email" }, password: { type: "password" } },
        authorize: async ({ email, password }) =>
          password === "right" ? { id: USER.sub, name: USER.name, email: String(email) } : null,
      }),
    ],
  };
}

/** A CSRF cookie and its token, minted once by the configuration and reused by every sign-in. */
async function csrf(config) {
  const response = await Auth(new Request(`${ORIGIN}/auth/csrf`), config);
  const cookie = response.headers.getSetCookie()[0].split(";")[0];
  const { csrfToken } = await response.json();
  return { cookie, csrfToken };
}

let client = 0;
/** The next client address: 10.0.0.0, 10.0.0.1, … 10.0.255.255, then again. */
function nextAddress() {
  client = (client + 1) & 0xffff;
  return `10.0.${client >> 8}.${client & 255}`;
}

function signInRequest(
  { cookie, csrfToken },
  { password = "right", address = nextAddress() } = {},
) {
  const body = new URLSearchParams({ csrfToken, email: USER.email, password });
  return new Request(`${ORIGIN}/auth/callback/credentials`, {
    method: "POST",
    headers: {
      cookie,
      "content-type": "application/x-www-form-urlencoded",
      "x-forwarded-for": address,
    },
    body: body.toString(),
  });
}

const sessionRequest = (cookie) =>
  new Request(`${ORIGIN}/auth/session`, { headers: { cookie: `${SALT}=${cookie}` } });

/**
 * Checks, warms and times the contenders, then adds their rows to `out` (see run.mjs).
 * `log` is run.mjs's recording logger: no error may be logged while timing.
 */
export async function rateLimitScenarios(out, { budgetMs, warmupMs, log, slices = 30 }) {
  const on = configWith(undefined, log.logger);
  const off = configWith(false, log.logger);
  const tokens = { on: await csrf(on), off: await csrf(off) };

  // The checks: a sign-in issues a session either way; with the limits on, one address is
  // refused on its 31st attempt in a minute; without them, never.
  for (const [name, config] of Object.entries({ on, off })) {
    const response = await Auth(signInRequest(tokens[name]), config);
    check(response.status === 302, `rate-limit ${name}: sign-in answered ${response.status}`);
    check(
      response.headers.getSetCookie().some((c) => c.startsWith(`${SALT}=`)),
      `rate-limit ${name}: the sign-in set no session cookie`,
    );
  }
  const statuses = [];
  for (let i = 0; i < 31; i++) {
    const request = signInRequest(tokens.on, { address: "192.0.2.1" });
    request.headers.set("x-auth-return-redirect", "1");
    statuses.push((await Auth(request, on)).status);
  }
  check(
    statuses.slice(0, 30).every((s) => s === 200) && statuses[30] === 429,
    `rate-limit on: 31 attempts from one address answered ${statuses.join(",")}`,
  );
  log.assertClean("the rate-limit checks");
  console.log("checked signin-credentials-rate-limit (the 31st attempt from one address: 429)");

  const cookie = await encode({ token: USER, secret: SECRET, salt: SALT });
  const refused = { on: 0, off: 0 };
  const signInOp = (name, config) => ({
    prepare: () => signInRequest(tokens[name]),
    run: async (r) => {
      if ((await Auth(r, config)).status !== 302) refused[name]++;
    },
  });
  const ops = {
    signInOn: signInOp("on", on),
    signInOff: signInOp("off", off),
    sessionOn: { prepare: () => sessionRequest(cookie), run: (r) => Auth(r, on) },
    sessionOff: { prepare: () => sessionRequest(cookie), run: (r) => Auth(r, off) },
  };
  await warmUp(Object.values(ops), { totalMs: warmupMs });
  log.assertClean("the warm-up of the rate-limit scenarios");
  const signIn = await compare(
    { on: ops.signInOn, off: ops.signInOff },
    { budgetMs, slices, warmupMs: 200 },
  );
  const session = await compare(
    { on: ops.sessionOn, off: ops.sessionOff },
    { budgetMs, slices, warmupMs: 200 },
  );
  log.assertClean("signin-credentials-rate-limit, session-jwt-rate-limit");
  check(
    refused.on === 0 && refused.off === 0,
    `rate-limit: ${refused.on + refused.off} timed sign-ins were not redirects`,
  );
  out.add({
    id: "signin-credentials-rate-limit",
    label: "credentials sign-in, limits on (memory) vs off",
    target: 0.95,
    g: signIn.on,
    a: signIn.off,
    ratio: signIn.ratio,
  });
  out.add({
    id: "session-jwt-rate-limit",
    label: "JWT session check, limits on vs off",
    target: 0.95,
    g: session.on,
    a: session.off,
    ratio: session.ratio,
  });
  const us = (r) => 1e6 / r.opsPerSec;
  console.log(
    `rate-limit: a sign-in takes ${us(signIn.off).toFixed(1)} µs without limits and ` +
      `${us(signIn.on).toFixed(1)} µs with them; the session check ${us(session.off).toFixed(1)} ` +
      `µs and ${us(session.on).toFixed(1)} µs`,
  );
}

// Alone: `node bench/rate-limit.mjs` prints its rows.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const rows = [];
  const out = {
    add: ({ id, target, g, a, ratio }) =>
      rows.push(
        `${id}: ${Math.round(g.opsPerSec)} ops/s (±${(g.rsd * 100).toFixed(0)} %) vs ` +
          `${Math.round(a.opsPerSec)} (±${(a.rsd * 100).toFixed(0)} %) without limits, ratio ` +
          `${ratio.toFixed(3)} (target ≥ ${target}: ${ratio >= target ? "PASS" : "MISS"})`,
      ),
    skip: ({ id, reason }) => rows.push(`${id}: skipped (${reason})`),
  };
  const budgetMs = Number(process.env.BENCH_BUDGET_MS ?? 3000);
  const warmupMs = Number(process.env.BENCH_WARMUP_MS ?? 8000);
  rateLimitScenarios(out, { budgetMs, warmupMs, log: recordingLogger() })
    .then(() => console.log(rows.join("\n")))
    .catch((error) => {
      console.error(error instanceof CheckFailed ? `bench check failed: ${error.message}` : error);
      process.exit(1);
    });
}
