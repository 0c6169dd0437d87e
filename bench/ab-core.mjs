/**
 * `node bench/ab-core.mjs <git-rev> [<git-rev after>]`: the built `@gatehousejs/core` of this
 * checkout (or, given a second revision, that revision's, compiled the same way) against the same
 * package built from `<git-rev>`, in one process, in interleaved slices (harness.mjs), on the
 * request paths of the main bench: a valid JWT cookie, no cookie, decode, encode, a database
 * session on the memory adapter and the full OAuth callback against the loopback provider; and
 * the rows issue 21 promised to keep: `getSession(request)` with a valid JWT cookie (what the
 * SolidStart integration's `getSession` runs), and a credentials sign-in with the rate limits on
 * (the default memory store, a new client address each time through `trustedProxies: 1`) and off.
 *
 * A regression check for changes to core: a shared machine moves `npm run bench`'s figures by
 * ±20-50 % from run to run, but both builds here share every slice's load, so a change of a few
 * per cent shows. Run `npm run build` first (this side is `packages/core/dist`). The other side is
 * `git archive <git-rev> packages/core/src`, compiled with tsc into `.tmp/ab-core/<rev>/` (type
 * errors there are ignored: only the emitted JavaScript is run). Knobs: AB_BUDGET_MS (timed ms
 * per build per row, default 1500), AB_WARMUP_MS (warm-up of both over every row, default 12000),
 * AB_ROWS (comma-separated parts of row names: only the rows that contain one of them).
 *
 * Every row is checked on both builds before timing (the user in the session, a 302 to the
 * callbackUrl); a failed check exits 1. Time ratios above 1 mean this checkout is slower.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { CheckFailed, check } from "./check.mjs";
import { compare, warmUp } from "./harness.mjs";
import { loopbackProvider, PROVIDER_ID } from "./oauth.mjs";
import { startProvider } from "./oauth-provider.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const budgetMs = Number(process.env.AB_BUDGET_MS ?? 1500);
const warmupMs = Number(process.env.AB_WARMUP_MS ?? 12_000);

const SECRET = "bench-secret-0123456789abcdef0123456789abcdef";
const SALT = "authjs.session-token";
const ORIGIN = "http://localhost:3000";
const USER = {
  name: "Ada Lovelace",
  email: "ada@example.com",
  picture: "https://example.com/ada.png",
  sub: "3f1c2d4e-0000-4000-8000-000000000001",
};

/** Compiles packages/core/src at `rev` into .tmp/ab-core/<rev>/dist; returns that dist. */
function buildAt(rev) {
  const sha = execFileSync("git", ["rev-parse", "--short", rev], { cwd: root }).toString().trim();
  const dir = join(root, ".tmp", "ab-core", sha);
  const dist = join(dir, "dist");
  if (existsSync(join(dist, "index.js"))) return { sha, dist };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const archive = execFileSync("git", ["archive", sha, "packages/core/src"], {
    cwd: root,
    maxBuffer: 64 * 1024 * 1024,
  });
  execFileSync("tar", ["-x", "-C", dir, "--strip-components=2"], { input: archive });
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      extends: join(root, "tsconfig.base.json"),
      compilerOptions: { rootDir: "src", outDir: "dist", declaration: false, sourceMap: false },
      include: ["src"],
    }),
  );
  try {
    execFileSync(join(root, "node_modules", ".bin", "tsc"), ["-p", dir], { stdio: "pipe" });
  } catch {
    // Type errors (an optional peer's types, say) still emit; only the JavaScript runs here.
  }
  check(existsSync(join(dist, "index.js")), `tsc emitted nothing for ${sha}`);
  return { sha, dist };
}

/** The six operations of one build of core, each checked once. */
async function rows(dist, providerBase) {
  const load = (path) => import(pathToFileURL(join(dist, path)).href);
  const { Auth, getSession, skipCSRFCheck } = await load("index.js");
  const { encode, decode } = await load("jwt.js");
  const { default: Credentials } = await load("providers/credentials.js");
  const { MemoryAdapter } = await load("memory-adapter.js");
  const credentials = Credentials({ authorize: async () => null });
  const config = { secret: SECRET, trustHost: true, basePath: "/auth", providers: [credentials] };
  const cookie = await encode({ token: USER, secret: SECRET, salt: SALT });
  const sessionRequest = (value) =>
    new Request(`${ORIGIN}/auth/session`, {
      headers: value ? { cookie: `${SALT}=${value}` } : {},
    });

  const adapter = MemoryAdapter();
  const user = await adapter.createUser({
    email: USER.email,
    name: USER.name,
    emailVerified: null,
  });
  const sessionToken = "ab-core-session-token-0123456789";
  const expires = new Date(Date.now() + 30 * 86_400_000);
  await adapter.createSession({ sessionToken, userId: user.id, expires });
  const databaseConfig = {
    ...config,
    adapter,
    session: { strategy: "database" },
    providers: [loopbackProvider(providerBase)],
  };

  const oauthConfig = {
    secret: SECRET,
    trustHost: true,
    basePath: "/auth",
    providers: [loopbackProvider(providerBase)],
    skipCSRFCheck,
  };
  let code = 0;
  async function callbackRequest() {
    const signIn = await Auth(
      new Request(`${ORIGIN}/auth/signin/${PROVIDER_ID}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ callbackUrl: `${ORIGIN}/dashboard` }),
      }),
      oauthConfig,
    );
    const authorize = new URL(signIn.headers.get("location") ?? "");
    const url = new URL(`${ORIGIN}/auth/callback/${PROVIDER_ID}`);
    url.searchParams.set("code", `code-${++code}`);
    const state = authorize.searchParams.get("state");
    if (state) url.searchParams.set("state", state);
    const cookies = signIn.headers.getSetCookie().map((c) => c.slice(0, c.indexOf(";")));
    return new Request(url, { headers: { cookie: cookies.join("; ") } });
  }

  const signInConfig = (rateLimit) => ({
    secret: SECRET,
    trustHost: true,
    trustedProxies: 1,
    basePath: "/auth",
    skipCSRFCheck,
    ...(rateLimit ? {} : { rateLimit: false }),
    providers: [
      Credentials({
        credentials: { email: { type: "email" }, password: { type: "password" } },
        authorize: async ({ email, password }) =>
          password === "right" ? { id: USER.sub, name: USER.name, email: String(email) } : null,
      }),
    ],
  });
  const limited = signInConfig(true);
  const unlimited = signInConfig(false);
  let client = 0;
  const signInRequest = () => {
    client = (client + 1) & 0xffff;
    return new Request(`${ORIGIN}/auth/callback/credentials`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "x-forwarded-for": `10.0.${client >> 8}.${client & 255}`,
      },
      body: new URLSearchParams({
        email: USER.email,
        password: "right",
        callbackUrl: `${ORIGIN}/dashboard`,
      }),
    });
  };

  const ops = {
    "getSession(request), valid JWT cookie": {
      prepare: () => sessionRequest(cookie),
      run: (r) => getSession(r, config),
    },
    "credentials sign-in, rate limits on": {
      prepare: signInRequest,
      run: (r) => Auth(r, limited),
    },
    "credentials sign-in, rate limits off": {
      prepare: signInRequest,
      run: (r) => Auth(r, unlimited),
    },
    "session, valid JWT cookie": {
      prepare: () => sessionRequest(cookie),
      run: (r) => Auth(r, config),
    },
    "session, no cookie": { prepare: () => sessionRequest(), run: (r) => Auth(r, config) },
    decode: () => decode({ token: cookie, secret: SECRET, salt: SALT }),
    encode: () => encode({ token: USER, secret: SECRET, salt: SALT }),
    "session, database, memory adapter": {
      prepare: () => sessionRequest(sessionToken),
      run: (r) => Auth(r, databaseConfig),
    },
    "OAuth callback": { prepare: callbackRequest, run: (r) => Auth(r, oauthConfig) },
  };

  for (const name of ["session, valid JWT cookie", "session, database, memory adapter"]) {
    const op = ops[name];
    const body = await (await op.run(op.prepare())).json();
    check(body?.user?.email === USER.email, `${dist}: ${name} has no session user`);
  }
  const read = await ops["getSession(request), valid JWT cookie"].run(sessionRequest(cookie));
  check(read?.user?.email === USER.email, `${dist}: getSession has no session user`);
  for (const name of [
    "credentials sign-in, rate limits on",
    "credentials sign-in, rate limits off",
  ]) {
    const signedIn = await ops[name].run(signInRequest());
    check(
      signedIn.status === 302 &&
        signedIn.headers.get("location") === `${ORIGIN}/dashboard` &&
        signedIn.headers.getSetCookie().some((c) => c.startsWith(`${SALT}=`)),
      `${dist}: ${name} answered ${signedIn.status} to ${signedIn.headers.get("location")}`,
    );
  }
  const none = await (await ops["session, no cookie"].run(sessionRequest())).json();
  check(none === null, `${dist}: a session without a cookie is not null`);
  check((await ops.decode())?.sub === USER.sub, `${dist}: decode lost the subject`);
  const callback = await ops["OAuth callback"].run(await callbackRequest());
  check(
    callback.status === 302 && callback.headers.get("location") === `${ORIGIN}/dashboard`,
    `${dist}: the OAuth callback answered ${callback.status} to ${callback.headers.get("location")}`,
  );
  return ops;
}

async function main() {
  const [rev, afterRev] = process.argv.slice(2);
  if (!rev) throw new Error("usage: node bench/ab-core.mjs <git-rev> [<git-rev after>]");
  // With a second revision both sides are compiled the same way from git, so neither depends on
  // how dist/ happens to be built.
  const current = afterRev ? buildAt(afterRev).dist : join(root, "packages", "core", "dist");
  check(existsSync(join(current, "index.js")), "packages/core/dist is missing: npm run build");
  const base = buildAt(rev);
  const provider = await startProvider();
  try {
    const before = await rows(base.dist, provider.base);
    const after = await rows(current, provider.base);
    console.log(
      `node ${process.version}; ${base.sha} (before) against ${afterRev ?? "this checkout's build"} (after); ` +
        `${budgetMs} ms each per row in 30 interleaved slices after ${warmupMs} ms of warm-up`,
    );
    const only = process.env.AB_ROWS?.split(",");
    const names = Object.keys(before).filter((n) => !only || only.some((o) => n.includes(o)));
    await warmUp(
      names.flatMap((n) => [before[n], after[n]]),
      { totalMs: warmupMs },
    );
    const summary = [];
    console.log("| row | before µs | after µs | after / before time |");
    console.log("|---|---:|---:|---:|");
    for (const name of names) {
      const r = await compare(
        { before: before[name], after: after[name] },
        { budgetMs, slices: 30, warmupMs: 200 },
      );
      const us = (x) => (1e6 / x.opsPerSec).toFixed(1);
      // ratio = before's rate / after's rate = after's time / before's time.
      console.log(`| ${name} | ${us(r.before)} | ${us(r.after)} | ${r.ratio.toFixed(3)} |`);
      summary.push(`${name.replace(/[^a-z]+/gi, "-").toLowerCase()}=${r.ratio.toFixed(3)}`);
    }
    console.log(`AB ${base.sha} ${summary.join(" ")}`);
  } finally {
    provider.stop();
  }
}

main().catch((error) => {
  console.error(error instanceof CheckFailed ? `ab check failed: ${error.message}` : error);
  process.exit(1);
});
