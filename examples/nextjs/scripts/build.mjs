/**
 * Builds the app (`next build` → .next/) only when something it is made of changed: its own
 * files and the built Gatehouse packages it imports. A hash of all of them is kept in
 * .next/.build-stamp; a start with the same hash serves the existing build. Offline: no
 * telemetry, and no font or anything else fetched at build time.
 *
 * Used by scripts/start.mjs and by the browser tests (tests/browser/nextjs-example.test.ts);
 * `node scripts/build.mjs` builds from the command line.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** The example's folder. */
export const appDir = dirname(dirname(fileURLToPath(import.meta.url)));
const repoDir = dirname(dirname(appDir));
const stampFile = join(appDir, ".next", ".build-stamp");
/** What the last build printed. */
export const buildLog = join(appDir, ".next", "build.log");
const lockDir = join(appDir, ".next-build.lock");

/** The path of Next.js's command line (hoisted to the repository's node_modules). */
export const nextBin = join(repoDir, "node_modules", "next", "dist", "bin", "next");
const tscBin = join(repoDir, "node_modules", "typescript", "bin", "tsc");

/** What the build is made of, relative to the repository root. */
const INPUTS = [
  "examples/nextjs",
  "packages/core/dist",
  "packages/core/package.json",
  "packages/nextjs/dist",
  "packages/nextjs/package.json",
  "packages/pg-adapter/dist",
  "packages/pg-adapter/package.json",
  "package-lock.json",
];

/** Build output, demo data and files Next.js writes: never inputs. */
const SKIPPED = new Set([
  ".next",
  ".next-build.lock",
  ".data",
  ".env",
  "node_modules",
  "next-env.d.ts",
  "scripts",
  "README.md",
]);

function* files(path) {
  if (!existsSync(path)) return;
  if (!statSync(path).isDirectory()) {
    yield path;
    return;
  }
  const entries = readdirSync(path, { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : 1,
  );
  for (const entry of entries) {
    if (entry.name.endsWith(".tsbuildinfo") || SKIPPED.has(entry.name)) continue;
    yield* files(join(path, entry.name));
  }
}

/** The hash of every input file's path and content. */
export function sourceHash() {
  const hash = createHash("sha256");
  for (const input of INPUTS) {
    for (const file of files(join(repoDir, input))) {
      hash.update(relative(repoDir, file));
      hash.update("\0");
      hash.update(readFileSync(file));
      hash.update("\0");
    }
  }
  return hash.digest("hex");
}

/** Whether .next/ was built from the current inputs. */
export function isBuilt(hash = sourceHash()) {
  return (
    existsSync(join(appDir, ".next", "BUILD_ID")) &&
    existsSync(stampFile) &&
    readFileSync(stampFile, "utf8").trim() === hash
  );
}

/** The environment of `next build` and `next start`: no telemetry. */
export function nextEnv(extra = {}) {
  return { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...extra };
}

function run(cwd, args, log) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      env: nextEnv({ NODE_ENV: "production" }),
    });
    let output = "";
    const collect = (stream) => (chunk) => {
      output += chunk;
      if (log) stream.write(chunk);
    };
    child.stdout.on("data", collect(process.stdout));
    child.stderr.on("data", collect(process.stderr));
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0
        ? resolve(output)
        : reject(new Error(`${args.join(" ")} exited with ${code}\n${output.slice(-4000)}`)),
    );
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** One build at a time (npm start and the tests may overlap): a lock folder, stale after 5 min. */
async function withLock(lockDir, task) {
  for (;;) {
    try {
      mkdirSync(lockDir);
      break;
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
      const since = statSync(lockDir, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
      if (Date.now() - since > 5 * 60_000) rmSync(lockDir, { recursive: true, force: true });
      await sleep(500);
    }
  }
  try {
    return await task();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

/**
 * Builds the app unless .next/ is up to date. Resolves to whether a build ran.
 * @param {{ log?: boolean }} [options] `log`: show Next's output (else it is shown on failure only)
 */
export async function ensureBuilt({ log = false } = {}) {
  // @gatehousejs/nextjs's dist, brought up to date first (the root's `npm run build` builds core
  // and the adapters; this is incremental, well under a second when nothing changed). The lock is
  // the one the package's own fixture builds take.
  await withLock(join(repoDir, "packages", "nextjs", ".dist-build.lock"), () =>
    run(repoDir, [tscBin, "-b", "packages/nextjs/tsconfig.build.json"], log),
  );
  if (isBuilt()) return false;
  return withLock(lockDir, async () => {
    const hash = sourceHash();
    if (isBuilt(hash)) return false;
    const output = await run(appDir, [nextBin, "build"], log);
    // Kept for the tests: a warning about the example's own code or Gatehouse's is a defect.
    writeFileSync(buildLog, output);
    writeFileSync(stampFile, `${hash}\n`);
    return true;
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  const built = await ensureBuilt({ log: true });
  console.log(
    built
      ? `Built the example in ${((Date.now() - started) / 1000).toFixed(1)} s`
      : "The example's build is up to date",
  );
}
