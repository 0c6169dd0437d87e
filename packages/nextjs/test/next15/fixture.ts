/**
 * The Next.js 15 fixture app (`.app/`, its own package.json and lockfile, not a workspace): the
 * repository's node_modules has Next.js 16, so this app installs Next.js 15.5 with `npm ci` and
 * gets Gatehouse as a user would, from `npm pack` tarballs of core and nextjs unpacked into its
 * node_modules. Every `next/*` import of the packages then resolves to Next.js 15.
 *
 * Caches: `npm ci` is skipped while node_modules holds the install of the current lockfile (a
 * stamp with its hash), the tarballs are repacked only when the packages' dist or package.json
 * changed, and `next build` is skipped while `.next/` was built from the same app files and
 * packages (a stamp with the hash of all of them).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { freePort } from "../../../../tests/support/free-port.js";

/** The fixture app's folder. */
export const appDir = join(import.meta.dirname, ".app");
const repoRoot = join(import.meta.dirname, "..", "..", "..", "..");

/** The Gatehouse packages the app uses, unpacked from their tarballs. */
const PACKED = ["core", "nextjs"] as const;

/**
 * A setup step that could not run for a reason of this machine (no registry): outside CI the
 * suite skips with the reason; with CI=true the suite fails.
 */
export class FixtureUnavailable extends Error {}

interface RunResult {
  code: number | null;
  output: string;
}

/**
 * The environment of the fixture's commands: the test runner's, without what would change the
 * build or the app (vitest's NODE_ENV=test, Auth and Next variables, Node options).
 */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (
      /^(NODE_ENV|NODE_OPTIONS|VITEST.*|VITE_.*|AUTH_.*|NEXTAUTH_.*|NEXT_.*|__NEXT.*|TEST|PORT|HOSTNAME)$/.test(
        name,
      )
    ) {
      continue;
    }
    env[name] = value;
  }
  return { ...env, NEXT_TELEMETRY_DISABLED: "1", ...extra };
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
function tail(output: string, lines = 40): string {
  return output.trimEnd().split("\n").slice(-lines).join("\n");
}

/** npm's words for a registry it could not reach. */
const OFFLINE =
  /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH)\b/;

const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** Files under `path` (a file or a folder), sorted, without build output and installs. */
function* files(path: string): Generator<string> {
  if (!existsSync(path)) return;
  if (!statSync(path).isDirectory()) {
    yield path;
    return;
  }
  const entries = readdirSync(path, { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : 1,
  );
  for (const entry of entries) {
    if (/^(node_modules|\.next|next-env\.d\.ts)$|\.tsbuildinfo$/.test(entry.name)) continue;
    yield* files(join(path, entry.name));
  }
}

/** The hash of every file's path (relative to the repository) and content under `paths`. */
function hashOf(paths: string[]): string {
  const hash = createHash("sha256");
  for (const path of paths) {
    for (const file of files(join(repoRoot, path))) {
      hash.update(relative(repoRoot, file));
      hash.update("\0");
      hash.update(readFileSync(file));
      hash.update("\0");
    }
  }
  return hash.digest("hex");
}

/** What the packed packages are made of. */
const packageInputs = PACKED.flatMap((name) => [
  `packages/${name}/dist`,
  `packages/${name}/package.json`,
]);

/**
 * `npm ci` from the fixture's lockfile, unless node_modules already holds exactly that install.
 * A fresh clone, as in CI, always installs.
 */
async function install(): Promise<"installed" | "reused"> {
  const lockHash = createHash("sha256")
    .update(readFileSync(join(appDir, "package-lock.json")))
    .digest("hex");
  const stamp = join(appDir, "node_modules", ".gatehouse-lock-sha256");
  if (
    existsSync(stamp) &&
    readFileSync(stamp, "utf8") === lockHash &&
    existsSync(join(appDir, "node_modules", "next", "package.json"))
  ) {
    return "reused";
  }
  const result = await run(
    npm,
    ["ci", "--no-audit", "--no-fund", "--loglevel=error"],
    cleanEnv(),
    300_000,
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
      `npm ci failed in packages/nextjs/test/next15/.app (exit ${result.code}):\n${tail(result.output)}`,
    );
  }
  writeFileSync(stamp, lockHash);
  return "installed";
}

/**
 * `npm pack` of core and nextjs, unpacked into `.app/node_modules/@gatehousejs/<name>` (real
 * folders, not links into the workspace), unless the unpacked copies are of the current dist.
 */
function unpackGatehouse(): "unpacked" | "reused" {
  for (const name of PACKED) {
    if (!existsSync(join(repoRoot, "packages", name, "dist", "index.js"))) {
      throw new Error(
        `packages/${name}/dist is missing: run "npm run build" first (npm test does)`,
      );
    }
  }
  const scope = join(appDir, "node_modules", "@gatehousejs");
  const stamp = join(scope, ".gatehouse-pack-sha256");
  const hash = hashOf(packageInputs);
  if (
    existsSync(stamp) &&
    readFileSync(stamp, "utf8") === hash &&
    PACKED.every((name) => existsSync(join(scope, name, "package.json")))
  ) {
    return "reused";
  }
  const out = mkdtempSync(join(tmpdir(), "gatehouse-next15-packs-"));
  try {
    mkdirSync(scope, { recursive: true });
    for (const name of PACKED) {
      // --ignore-scripts: dist is already built (prepack would build it again).
      const file = execFileSync(
        npm,
        ["pack", "--silent", "--ignore-scripts", "--pack-destination", out],
        { cwd: join(repoRoot, "packages", name), encoding: "utf8" },
      )
        .trim()
        .split("\n")
        .pop()!;
      const target = join(scope, name);
      rmSync(target, { recursive: true, force: true });
      mkdirSync(target, { recursive: true });
      execFileSync("tar", ["-xzf", join(out, file), "-C", target, "--strip-components=1"]);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  writeFileSync(stamp, hash);
  return "unpacked";
}

/** What `next build` is made of: the app's files, its lockfile, and the packed packages. */
function buildHash(): string {
  return hashOf(["packages/nextjs/test/next15/.app", ...packageInputs]);
}

const nextBin = join(appDir, "node_modules", "next", "dist", "bin", "next");

/** The version of Next.js the fixture installed. */
export function nextVersion(): string {
  const manifest = JSON.parse(
    readFileSync(join(appDir, "node_modules", "next", "package.json"), "utf8"),
  ) as { version: string };
  return manifest.version;
}

/** `next build` (webpack, Next.js 15's default), unless `.next/` is of the current inputs. */
async function build(): Promise<"built" | "reused"> {
  const hash = buildHash();
  const stamp = join(appDir, ".next", ".gatehouse-build-sha256");
  if (
    existsSync(join(appDir, ".next", "BUILD_ID")) &&
    existsSync(stamp) &&
    readFileSync(stamp, "utf8") === hash
  ) {
    return "reused";
  }
  const result = await run(
    process.execPath,
    [nextBin, "build"],
    cleanEnv({ NODE_ENV: "production" }),
    300_000,
  );
  if (result.code !== 0 || !existsSync(join(appDir, ".next", "BUILD_ID"))) {
    throw new Error(`next build failed (exit ${result.code}):\n${tail(result.output)}`);
  }
  writeFileSync(stamp, hash);
  return "built";
}

/** The built app, running. */
export interface RunningFixture {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** The Next.js version serving it. */
  next: string;
  /** What each step did, and the seconds the whole setup took. */
  steps: { install: string; unpack: string; build: string; seconds: number };
  /** What the server printed so far. */
  output(): string;
  close(): Promise<void>;
}

/** `next start` on a free port; waits until the auth route answers. */
async function serve(): Promise<{ origin: string; child: ChildProcess; output: () => string }> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [nextBin, "start", "-p", String(port), "-H", "127.0.0.1"], {
    cwd: appDir,
    env: cleanEnv({
      NODE_ENV: "production",
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
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`next start exited (${child.exitCode}):\n${tail(output)}`);
    }
    try {
      const response = await fetch(`${origin}/api/auth/providers`);
      await response.arrayBuffer();
      if (response.ok) return { origin, child, output: () => output };
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill("SIGKILL");
  throw new Error(`next start did not answer within 60 s:\n${tail(output)}`);
}

/**
 * One run at a time in a checkout: a second run would reinstall or rebuild the app under the
 * first one's server. The lock (a folder under the repository's .tmp/, with the holder's pid) is
 * held from the install to the server's end; a lock whose process is gone is taken over.
 */
const lockDir = join(repoRoot, ".tmp", "nextjs-next15.lock");

function lockIsStale(): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(lockDir, "pid"), "utf8"));
  } catch {
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

/** Installs, unpacks Gatehouse, builds (each when needed) and starts the fixture app. */
export async function startFixture(): Promise<RunningFixture> {
  const release = await acquireLock();
  try {
    const started = performance.now();
    const install_ = await install();
    const unpack = unpackGatehouse();
    const build_ = await build();
    const seconds = Math.round((performance.now() - started) / 100) / 10;
    const { origin, child, output } = await serve();
    return {
      origin,
      next: nextVersion(),
      steps: { install: install_, unpack, build: build_, seconds },
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
  } catch (error) {
    release();
    throw error;
  }
}
