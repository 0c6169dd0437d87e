/**
 * The session check over real HTTP, against the floor of the transport: plain `node:http`
 * servers with keep-alive on 127.0.0.1 answering `GET …/session` with a valid session cookie,
 * driven by a load generator (a `node:http` `Agent` with keep-alive and N sockets, each socket
 * sending its next request when the last answer is read) for a fixed time, one server at a time.
 *
 * - floor: `node:http` answering a constant JSON body, no library, no web `Request`;
 * - Gatehouse: `Auth()` of the built `@gatehousejs/core` (credentials provider, JWT sessions);
 * - @auth/core 0.41.3 and Better Auth 1.7 (its cookie cache on: the session in the cookie, as
 *   with the two JWTs), all three through the same node ↔ web conversion (`webListener` below):
 *   the conversion is part of what a real integration pays, so it is measured, the same for all;
 * - (info) the conversion alone, answering a constant `Response`; Gatehouse with 8,192 sessions
 *   sent in turn, more than it keeps decrypted, so that every check decrypts (a single cookie is
 *   decrypted once and then remembered: see `rememberDecryptions` in core's `crypto/jwe.ts`);
 *   Gatehouse in raw mode, its internal response written to `node:http` with no web `Response`
 *   (what an adapter of its own could do); Better Auth's own `toNodeHandler`.
 *
 * Each server is a process of its own (this file with `--serve <id>`), loading only its own
 * library, as in a real deployment: Better Auth runs its handlers in an `AsyncLocalStorage`, and
 * on Node 20 that puts a hook on every promise of the process (it made Gatehouse's check about a
 * quarter slower when both shared one). The load generator is another (`--load-generator`), and
 * this one only orchestrates, so on a 2-CPU machine the server being timed has one CPU to itself
 * when nothing else runs. Besides requests a second, each run records the server process's CPU
 * time per request (all its threads), the figure that load from outside moves least.
 *
 * Each library's cookie is the one it issues: Gatehouse and @auth/core sign in through their own
 * credentials callback (CSRF token, form POST), Better Auth signs up through its own API. Every
 * contender is checked before it is timed (200, the user's name and email in the JSON), and every
 * timed answer is checked as it arrives (status 200 and the body length the check saw): a library
 * that fails fast cannot look fast. No library may log an error. Contenders run in rounds, in
 * turn, the order reversed every round, so drift lands on all; the floor runs next to Gatehouse in
 * both orders, and the ratio is the median of the per-round ratios.
 *
 * `node bench/http-session.mjs` runs it alone (about two minutes); `npm run bench` runs it after
 * the three-way rows. Knobs: HTTP_ROUNDS (default 7), HTTP_RUN_MS (timed ms per contender per
 * round, default 2000), HTTP_WARMUP_MS (warm-up per contender before the rounds, default 4000),
 * HTTP_CONNECTIONS (sockets of the load generator, default 8), HTTP_CONTENDERS (ids to run, comma
 * separated, e.g. `floor,gatehouse`), HTTP_GATEHOUSE_BUILDS (`name=dir,…`: the `dist/` of other
 * builds of `packages/core`, each run as one more contender, `gatehouse@name`, for a before/after
 * under the same load), HTTP_PROFILE (ids whose server runs with `--cpu-prof`, into
 * HTTP_PROFILE_DIR, default `.tmp/http-session-profiles`).
 */
import { fork } from "node:child_process";
import { Agent, createServer, request as httpRequest } from "node:http";
import { availableParallelism, cpus, loadavg } from "node:os";
import { Readable } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";
import { CheckFailed, check, recordingLogger } from "./check.mjs";
import { median } from "./harness.mjs";

// Nothing else is imported here: every process runs this file, and each server loads only its
// own library (dynamic imports in `contenders()`).

/** Gatehouse's requests a second over the floor's: the issue's target. */
export const TARGET = 0.75;

const HOST = "127.0.0.1";
/**
 * Sessions the `gatehouse-fresh` contender sends in turn: four times as many as Gatehouse keeps
 * decrypted (1,024 per generation, two generations), so every one of its checks decrypts.
 */
const FRESH_SESSIONS = 8192;
const FLOOR_BODY = JSON.stringify({ user: null, expires: null });

// ---------------------------------------------------------------------------------------------
// The node ↔ web conversion: what a framework integration does around a web handler.

/**
 * The web `Request` for an incoming message: the URL from `Host` and the path, and every header
 * as received (as pairs: a `Headers` built here would only be copied again by the `Request`);
 * methods with a body get the message as a stream.
 */
function toRequest(incoming) {
  const raw = incoming.rawHeaders;
  const headers = [];
  let host = HOST;
  for (let i = 0; i < raw.length; i += 2) {
    headers.push([raw[i], raw[i + 1]]);
    if (raw[i].length === 4 && raw[i].toLowerCase() === "host") host = raw[i + 1];
  }
  const method = incoming.method;
  const init = { method, headers };
  if (method !== "GET" && method !== "HEAD") {
    init.body = Readable.toWeb(incoming);
    init.duplex = "half";
  }
  return new Request(`http://${host}${incoming.url}`, init);
}

/**
 * A `node:http` listener around `handle(Request) → Promise<answer>`, with `write(answer,
 * outgoing)` sending the answer back. A request the web API refuses (a malformed header value,
 * say) gets a 400; a handler that throws gets a bare 500 and `onError(error)`, so the bench can
 * stop on it.
 */
function listener(handle, write, onError) {
  const fail = (outgoing, error) => {
    onError(error);
    if (!outgoing.headersSent) outgoing.writeHead(500);
    outgoing.end();
  };
  return (incoming, outgoing) => {
    let request;
    try {
      request = toRequest(incoming);
    } catch {
      outgoing.writeHead(400).end();
      return;
    }
    handle(request).then(
      (answer) => write(answer, outgoing).catch((error) => fail(outgoing, error)),
      (error) => fail(outgoing, error),
    );
  };
}

/**
 * A web handler (`Request` in, `Response` out) on `node:http`: the `Response` goes back as its
 * status, its headers (each `Set-Cookie` on a line of its own) and its body, read whole through
 * the stream's reader and sent with a `Content-Length` (these answers are small;
 * `arrayBuffer()` costs more for the same bytes).
 */
export function webListener(handle, onError) {
  return listener(handle, send, onError);
}

/**
 * Gatehouse in raw mode (`config.raw` set to its `raw` symbol) on `node:http`: `Auth()` answers
 * its internal response (status, headers, body, cookies, redirect) and this writes it, with no
 * web `Response` and no body stream in between: what a `node:http` adapter of Gatehouse's own
 * could do. Only what a session check answers is written (a status, headers, a JSON body); an
 * answer with cookies or a redirect fails, so that none can pass unwritten.
 */
function rawListener(Auth, config, onError) {
  const write = async (result, outgoing) => {
    if (result.redirect !== undefined || result.cookies?.length) {
      throw new Error("the raw listener writes neither cookies nor redirects");
    }
    const headers = result.headers ?? {};
    const json = (headers["Content-Type"] ?? "application/json") === "application/json";
    const body =
      typeof result.body === "string" && !json ? result.body : JSON.stringify(result.body ?? null);
    outgoing.writeHead(result.status ?? 200, headers);
    outgoing.end(body);
  };
  return listener((request) => Auth(request, config), write, onError);
}

async function send(response, outgoing) {
  const headers = [];
  for (const [name, value] of response.headers) {
    if (name !== "set-cookie") headers.push(name, value);
  }
  for (const cookie of response.headers.getSetCookie()) headers.push("set-cookie", cookie);
  const chunks = [];
  if (response.body !== null) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
  }
  outgoing.writeHead(response.status, headers);
  outgoing.end(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
}

/** The floor: `node:http` alone, a constant JSON body. */
function floorListener(_incoming, outgoing) {
  outgoing.writeHead(200, ["content-type", "application/json"]);
  outgoing.end(FLOOR_BODY);
}

/** Starts a keep-alive server on 127.0.0.1, a free port; resolves to `{ port, close() }`. */
function listen(listener) {
  const server = createServer({ keepAliveTimeout: 60_000 }, listener);
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, HOST, () => {
      resolve({
        port: server.address().port,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

// ---------------------------------------------------------------------------------------------
// The contenders.

// The bench's secret, user and origin, as in contenders.mjs (which imports both libraries, so a
// server loading it would load the other library too).
const SECRET = "bench-secret-0123456789abcdef0123456789abcdef";
const SALT = "authjs.session-token";
const ORIGIN = "http://localhost:3000";
const USER = {
  name: "Ada Lovelace",
  email: "ada@example.com",
  picture: "https://example.com/ada.png",
  sub: "3f1c2d4e-0000-4000-8000-000000000001",
};

/** A JWT configuration like the other rows': one credentials provider, basePath `/auth`. */
function jwtConfig(Credentials, logger) {
  const credentials = {
    credentials: { email: { label: "Email", type: "email" }, password: { type: "password" } },
    authorize: async ({ email }) => ({ id: USER.sub, name: USER.name, email: String(email) }),
  };
  return {
    secret: SECRET,
    trustHost: true,
    basePath: "/auth",
    providers: [Credentials(credentials)],
    logger,
  };
}

/** `name=value` of each `Set-Cookie`, joined as a browser sends them back. */
const cookieHeader = (response) =>
  response.headers
    .getSetCookie()
    .map((c) => c.slice(0, c.indexOf(";")))
    .join("; ");

/**
 * Signs in through the library's own credentials flow, as a browser does: the CSRF token, then
 * the form POST. Returns the `Cookie` header holding the session cookie it issued.
 */
async function signIn(Auth, config) {
  const csrf = await Auth(new Request(`${ORIGIN}/auth/csrf`), config);
  const { csrfToken } = await csrf.json();
  const form = new URLSearchParams({ csrfToken, email: USER.email, password: "x" });
  const answer = await Auth(
    new Request(`${ORIGIN}/auth/callback/credentials`, {
      method: "POST",
      headers: {
        cookie: cookieHeader(csrf),
        "content-type": "application/x-www-form-urlencoded",
      },
      body: form,
    }),
    config,
  );
  check(answer.status === 302, `credentials sign-in answered ${answer.status}, expected 302`);
  const session = answer.headers.getSetCookie().find((c) => c.startsWith(`${SALT}=`));
  check(session !== undefined, "the credentials sign-in set no session cookie");
  return session.slice(0, session.indexOf(";"));
}

/** Gatehouse's `Auth` and credentials provider: this checkout's build, or the one at `dist`. */
async function gatehouseLibrary(dist) {
  if (!dist) {
    const { Auth, raw } = await import("@gatehousejs/core");
    const { default: Credentials } = await import("@gatehousejs/core/providers/credentials");
    return { Auth, raw, Credentials };
  }
  const base = pathToFileURL(`${dist.replace(/\/$/, "")}/`);
  const { Auth, raw } = await import(new URL("index.js", base).href);
  const { default: Credentials } = await import(new URL("providers/credentials.js", base).href);
  return { Auth, raw, Credentials };
}

/**
 * Gatehouse served through the conversion (or in raw mode, `raw`), with `sessions` cookies minted
 * by signing in.
 */
async function gatehouseServer({ dist, sessions = 1, raw = false, logger, onError }) {
  const library = await gatehouseLibrary(dist);
  const { Auth } = library;
  const config = jwtConfig(library.Credentials, logger);
  const cookies = [];
  for (let i = 0; i < sessions; i++) cookies.push(await signIn(Auth, config));
  const listener = raw
    ? rawListener(Auth, { ...config, raw: library.raw }, onError)
    : webListener((request) => Auth(request, config), onError);
  return sessions === 1 ? { cookie: cookies[0], listener } : { cookies, listener };
}

async function betterAuthServer({ own, logger, onError }) {
  const { betterAuthContender } = await import("./better-auth.mjs");
  const { auth, cookie, listener } = await betterAuthContender({ cookieCache: true, logger });
  return own
    ? { cookie, listener }
    : { cookie, listener: webListener((request) => auth.handler(request), onError) };
}

/**
 * Every contender, in the order they run: `{ id, label, info, path, make(context) }`, where
 * `make({ logger, onError })` builds its server in the `--serve` process and resolves to
 * `{ cookie | cookies, listener }`.
 */
function contenders(builds = []) {
  const constant = () =>
    new Response(FLOOR_BODY, { headers: { "content-type": "application/json" } });
  const BETTER_AUTH_PATH = "/api/auth/get-session";
  return [
    {
      id: "bridge",
      label: "node ↔ web conversion alone, constant Response",
      info: true,
      path: "/",
      make: async ({ onError }) => ({ listener: webListener(async () => constant(), onError) }),
    },
    {
      id: "floor",
      label: "node:http alone, constant JSON (the floor)",
      info: true,
      path: "/",
      make: async () => ({ listener: floorListener }),
    },
    {
      id: "gatehouse",
      label: "Gatehouse Auth(), JWT",
      path: "/auth/session",
      make: (context) => gatehouseServer(context),
    },
    {
      id: "gatehouse-fresh",
      label: `Gatehouse Auth(), JWT, ${fmt(FRESH_SESSIONS)} sessions in turn`,
      info: true,
      path: "/auth/session",
      make: (context) => gatehouseServer({ ...context, sessions: FRESH_SESSIONS }),
    },
    {
      id: "gatehouse-raw",
      label: "Gatehouse Auth() in raw mode, no web Response",
      info: true,
      path: "/auth/session",
      make: (context) => gatehouseServer({ ...context, raw: true }),
    },
    ...builds.map(({ name, dist }) => ({
      id: `gatehouse@${name}`,
      label: `Gatehouse Auth(), JWT, ${name} (${dist})`,
      info: true,
      path: "/auth/session",
      make: (context) => gatehouseServer({ ...context, dist }),
    })),
    {
      id: "authjs",
      label: "@auth/core Auth(), JWT",
      path: "/auth/session",
      make: async ({ logger, onError }) => {
        const { Auth } = await import("@auth/core");
        const { default: Credentials } = await import("@auth/core/providers/credentials");
        const config = jwtConfig(Credentials, logger);
        return {
          cookie: await signIn(Auth, config),
          listener: webListener((request) => Auth(request, config), onError),
        };
      },
    },
    {
      id: "better-auth",
      label: "Better Auth handler, cookie cache",
      path: BETTER_AUTH_PATH,
      make: (context) => betterAuthServer({ ...context, own: false }),
    },
    {
      id: "better-auth-own",
      label: "Better Auth toNodeHandler, cookie cache",
      info: true,
      path: BETTER_AUTH_PATH,
      make: (context) => betterAuthServer({ ...context, own: true }),
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// A server: this same file, run as a child process with `--serve <id>`.

/**
 * Builds contender `id`'s server and tells the parent its port and cookie(s); then answers each
 * `usage` message with this process's CPU time so far and the errors its library logged.
 */
async function serve(id) {
  const log = recordingLogger();
  const context = { logger: log.logger, onError: (error) => log.logger.error(error) };
  const builds = JSON.parse(process.env.HTTP_SESSION_BUILDS ?? "[]");
  const contender = contenders(builds).find((c) => c.id === id);
  const { cookie, cookies, listener } = await contender.make(context);
  const server = await listen(listener);
  process.on("message", async (message) => {
    if (message === "usage") {
      const errors = log.errors.splice(0);
      const first = errors[0] instanceof Error ? `${errors[0].name}: ${errors[0].message}` : "";
      process.send({ usage: process.cpuUsage(), errors: errors.length, first });
    } else if (message === "exit") {
      await server.close();
      process.exit(0);
    }
  });
  process.on("disconnect", () => process.exit(0));
  process.send({ ready: { port: server.port, cookie, cookies } });
}

/** One child process of this file, with request/answer messaging (one question at a time). */
function child(args, { execArgv = [], env } = {}) {
  const proc = fork(fileURLToPath(import.meta.url), args, {
    // Not this process's flags: a --cpu-prof of one process must not profile the others.
    execArgv,
    env: { ...process.env, ...env },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  let pending;
  let first;
  const firstMessage = new Promise((resolve, reject) => {
    first = { resolve, reject };
  });
  proc.on("message", (message) => {
    if (first) {
      const settle = first;
      first = undefined;
      if (message.error) settle.reject(new Error(`${args.join(" ")}: ${message.error}`));
      else settle.resolve(message);
      return;
    }
    const settle = pending;
    pending = undefined;
    if (message.error) settle?.reject(new Error(`${args.join(" ")}: ${message.error}`));
    else settle?.resolve(message);
  });
  proc.on("exit", (code) => {
    const why = new Error(`${args.join(" ")} exited (${code})`);
    first?.reject(why);
    pending?.reject(why);
    first = undefined;
    pending = undefined;
  });
  return {
    firstMessage,
    ask: (message) =>
      new Promise((resolve, reject) => {
        pending = { resolve, reject };
        proc.send(message);
      }),
    tell: (message) => proc.send(message),
    exited: () =>
      proc.exitCode !== null ? Promise.resolve() : new Promise((done) => proc.once("exit", done)),
  };
}

/** Starts contender `id`'s server process; resolves once it listens. */
async function startServer(id, { builds, profileDir }) {
  const execArgv = profileDir
    ? [
        "--cpu-prof",
        `--cpu-prof-dir=${profileDir}`,
        `--cpu-prof-name=${id.replace(/\W/g, "_")}.cpuprofile`,
      ]
    : [];
  const env = { HTTP_SESSION_BUILDS: JSON.stringify(builds) };
  const proc = child(["--serve", id], { execArgv, env });
  const { ready } = await proc.firstMessage;
  return {
    ...ready,
    usage: () => proc.ask("usage"),
    stop: async () => {
      proc.tell("exit");
      await proc.exited();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The load generator: this same file, run as a child process.

/** One untimed GET over a fresh connection: `{ status, headers, body }`. */
function get(port, path, headers) {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: HOST, port, path, headers, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** Lists of request headers sent in turn, by name (`define` messages). Held in the child. */
const rotations = new Map();

/**
 * Sends `GET path` over `connections` keep-alive sockets for `ms` milliseconds, each socket
 * sending its next request as soon as the last answer is read: with `headers`, or with each
 * headers of the list named `rotate` in turn. Answers other than `status` with a body of `length`
 * bytes are counted as bad. Runs in the child.
 */
async function drive({ port, path, headers, rotate, ms, connections, status, length }) {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const fixed = { agent, host: HOST, port, path, headers };
  const list = rotate === undefined ? undefined : rotations.get(rotate);
  let turn = 0;
  const optionsFor = list
    ? () => ({ agent, host: HOST, port, path, headers: list[turn++ % list.length] })
    : () => fixed;
  let requests = 0;
  let bad = 0;
  let firstBad;
  const one = () =>
    new Promise((resolve, reject) => {
      const req = httpRequest(optionsFor(), (res) => {
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
  const start = performance.now();
  const end = start + ms;
  const loop = async () => {
    while (performance.now() < end) {
      await one();
      requests++;
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  const elapsed = performance.now() - start;
  agent.destroy();
  return { requests, ms: elapsed, bad, firstBad };
}

function loadGenerator() {
  process.on("message", (job) => {
    if (job === "exit") process.exit(0);
    if (job.define !== undefined) {
      rotations.set(job.define, job.list);
      return;
    }
    drive(job).then(
      (result) => process.send(result),
      (error) => process.send({ error: String(error?.stack ?? error) }),
    );
  });
  process.on("disconnect", () => process.exit(0));
  process.send({ ready: true });
}

// ---------------------------------------------------------------------------------------------
// The run.

/** The untimed check of one contender; returns the body length every timed answer must have. */
async function checkContender(c) {
  const { status, headers, body } = await get(c.server.port, c.path, c.headers);
  check(status === 200, `${c.label}: status ${status}, expected 200`);
  let parsed;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new CheckFailed(`${c.label}: the answer is not JSON`);
  }
  if (c.path !== "/") {
    check(parsed?.user?.email === USER.email, `${c.label}: the answer has no session user`);
    check(parsed.user.name === USER.name, `${c.label}: the session user has the wrong name`);
  }
  c.setCookies = headers["set-cookie"]?.length ?? 0;
  return Buffer.byteLength(body);
}

/** The errors a server's library logged since the last look: none is allowed. */
function assertClean(c, report) {
  check(
    report.errors === 0,
    `${c.label}: ${report.errors} error(s) logged, the first: ${report.first}`,
  );
}

/** One timed run of one contender: requests a second and its server's CPU µs a request. */
async function timed(generator, c, ms, connections) {
  const before = await c.server.usage();
  assertClean(c, before);
  const result = await generator.ask({
    port: c.server.port,
    path: c.path,
    headers: c.headers,
    rotate: c.rotate,
    ms,
    connections,
    status: 200,
    length: c.length,
  });
  const after = await c.server.usage();
  assertClean(c, after);
  check(
    result.bad === 0,
    `${c.label}: ${result.bad} bad answer(s) while timed, the first: ${result.firstBad}`,
  );
  const cpu = (u) => u.usage.user + u.usage.system;
  return {
    rate: (result.requests * 1000) / result.ms,
    cpuUs: (cpu(after) - cpu(before)) / result.requests,
  };
}

const spread = (values) => {
  const m = median(values);
  return m > 0 ? (Math.max(...values) - Math.min(...values)) / 2 / m : 0;
};

/**
 * Starts, checks, warms and times the contenders. Returns `{ contenders, ratio, ratios, verdict,
 * load, settings }`; `ratio` is the median over the rounds of Gatehouse's rate over the floor's.
 * Throws `CheckFailed` when a check fails or a library logs an error.
 */
export async function httpSession({
  rounds = 7,
  runMs = 2000,
  warmupMs = 4000,
  connections = 8,
  only,
  builds = [],
  profile = [],
  profileDir = ".tmp/http-session-profiles",
} = {}) {
  const all = contenders(builds);
  const chosen = only ? all.filter((c) => only.includes(c.id)) : all;
  const generator = child(["--load-generator"]);
  const load = [loadavg()[0]];
  try {
    await generator.firstMessage;
    for (const c of chosen) {
      const dir = profile.includes(c.id) ? profileDir : undefined;
      c.server = await startServer(c.id, { builds, profileDir: dir });
      c.cookie = c.server.cookies?.[0] ?? c.server.cookie;
      if (c.server.cookies) {
        c.rotate = c.id;
        generator.tell({
          define: c.id,
          list: c.server.cookies.map((value) => ({ cookie: value })),
        });
      }
      c.headers = c.cookie ? { cookie: c.cookie } : {};
      c.length = await checkContender(c);
      assertClean(c, await c.server.usage());
    }
    console.log(
      `checked ${chosen.map((c) => `${c.id} (${c.length} B, ${c.setCookies} Set-Cookie)`).join(", ")}`,
    );
    for (const c of chosen) await timed(generator, c, warmupMs, connections);
    for (const c of chosen) c.runs = [];
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? chosen : [...chosen].reverse();
      for (const c of order) c.runs.push(await timed(generator, c, runMs, connections));
      load.push(loadavg()[0]);
    }
  } finally {
    generator.tell("exit");
    for (const c of chosen) await c.server?.stop();
  }
  const byId = Object.fromEntries(chosen.map((c) => [c.id, c]));
  const ratiosOf = (id) =>
    byId[id] && byId.floor ? byId[id].runs.map((run, i) => run.rate / byId.floor.runs[i].rate) : [];
  const ratios = ratiosOf("gatehouse");
  const ratio = ratios.length > 0 ? median(ratios) : undefined;
  return {
    contenders: chosen.map((c) => ({
      id: c.id,
      label: c.label,
      info: Boolean(c.info),
      rate: median(c.runs.map((run) => run.rate)),
      spread: spread(c.runs.map((run) => run.rate)),
      cpuUs: median(c.runs.map((run) => run.cpuUs)),
      vsFloor: byId.floor ? median(ratiosOf(c.id)) : undefined,
      setCookies: c.setCookies,
    })),
    ratio,
    ratios,
    verdict: ratio === undefined ? "info" : ratio >= TARGET ? "PASS" : "MISS",
    load: { min: Math.min(...load), max: Math.max(...load) },
    settings: { rounds, runMs, warmupMs, connections },
  };
}

const fmt = (n) => Math.round(n).toLocaleString("en-US");

/** The result as a table, for the console and for RESULTS.md. */
export function httpSessionReport(result) {
  const header = ["contender", "req/s", "± (half range)", "server CPU µs/req", "vs floor"];
  const rows = result.contenders.map((c) => [
    `${c.info ? "(info) " : ""}${c.label}`,
    fmt(c.rate),
    `±${Math.round(c.spread * 100)}%`,
    c.cpuUs.toFixed(1),
    c.vsFloor === undefined ? "—" : `${c.vsFloor.toFixed(2)}×`,
  ]);
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((r) => r[i].length)));
  const line = (cells) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`;
  const { rounds, runMs, connections } = result.settings;
  return [
    line(header),
    rule,
    ...rows.map(line),
    `${rounds} rounds of ${runMs} ms per contender, ${connections} keep-alive connections; ` +
      `req/s and CPU the median round; load average ${result.load.min.toFixed(1)}–${result.load.max.toFixed(1)}.`,
    result.ratio === undefined
      ? ""
      : `Gatehouse / floor: ${result.ratio.toFixed(3)} (per round ${result.ratios.map((r) => r.toFixed(2)).join(", ")}), ` +
        `target ≥ ${TARGET}: ${result.verdict}`,
  ].join("\n");
}

/** The entry of the `BENCH` line: `http-session=0.78x/0.75x:PASS(gatehouse/floor req/s)`. */
export function httpSessionSummary(result) {
  const rate = (id) => Math.round(result.contenders.find((c) => c.id === id)?.rate ?? 0);
  return `http-session=${result.ratio.toFixed(2)}x/${TARGET}x:${result.verdict}(${rate("gatehouse")}/${rate("floor")})`;
}

/** The options of {@link httpSession} from the HTTP_* environment variables (see the top). */
export function httpSessionOptions(env = process.env) {
  return {
    rounds: Number(env.HTTP_ROUNDS ?? 7),
    runMs: Number(env.HTTP_RUN_MS ?? 2000),
    warmupMs: Number(env.HTTP_WARMUP_MS ?? 4000),
    connections: Number(env.HTTP_CONNECTIONS ?? 8),
    only: env.HTTP_CONTENDERS?.split(","),
    builds: (env.HTTP_GATEHOUSE_BUILDS?.split(",") ?? []).map((entry) => {
      const [name, dist] = entry.split("=");
      return { name, dist };
    }),
    profile: env.HTTP_PROFILE?.split(",") ?? [],
    profileDir: env.HTTP_PROFILE_DIR,
  };
}

const isMain = process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href;

if (isMain && process.argv[2] === "--load-generator") {
  loadGenerator();
} else if (isMain && process.argv[2] === "--serve") {
  serve(process.argv[3]).catch((error) => {
    process.send({ error: String(error?.stack ?? error) });
    process.exit(1);
  });
} else if (isMain) {
  const options = httpSessionOptions();
  console.log(
    `node ${process.version}, ${availableParallelism()} CPU(s) (${cpus()[0]?.model ?? "unknown CPU"}); ` +
      `load average ${loadavg()
        .map((n) => n.toFixed(2))
        .join(" ")}`,
  );
  const started = performance.now();
  httpSession(options)
    .then((result) => {
      console.log();
      console.log(httpSessionReport(result));
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      if (result.ratio !== undefined) {
        const passed = result.verdict === "PASS" ? 1 : 0;
        console.log(`BENCH ${passed}/1 pass ${httpSessionSummary(result)} ${seconds}s`);
      }
    })
    .catch((error) => {
      console.error(error instanceof CheckFailed ? `bench check failed: ${error.message}` : error);
      process.exit(1);
    });
}
