/**
 * Builds the app (`vinxi build` → .output/) only when something it is made of changed: its own
 * sources and configuration, and the built Gatehouse packages it imports. A hash of all of them
 * is kept in .output/.build-stamp; a start with the same hash serves the existing build.
 *
 * Used by scripts/start.mjs and by the browser tests (tests/browser/example-app.ts).
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
const stampFile = join(appDir, ".output", ".build-stamp");
/** What the last build printed. */
export const buildLog = join(appDir, ".output", "build.log");
const lockDir = join(appDir, ".output-build.lock");

/** What the build is made of, relative to the repository root. */
const INPUTS = [
  "examples/solid-start/src",
  "examples/solid-start/public",
  "examples/solid-start/app.config.ts",
  "examples/solid-start/package.json",
  "examples/solid-start/tsconfig.json",
  "packages/core/dist",
  "packages/core/package.json",
  "packages/pg-adapter/dist",
  "packages/pg-adapter/package.json",
  "packages/solid-start/dist",
  "packages/solid-start/package.json",
  "package-lock.json",
];

function* files(path) {
  if (!existsSync(path)) return;
  if (!statSync(path).isDirectory()) {
    yield path;
    return;
  }
  for (const entry of readdirSync(path, { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : 1,
  )) {
    if (entry.name.endsWith(".tsbuildinfo")) continue;
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

/** Whether .output/ was built from the current inputs. */
export function isBuilt(hash = sourceHash()) {
  return (
    existsSync(join(appDir, ".output", "server", "index.mjs")) &&
    existsSync(buildLog) &&
    existsSync(stampFile) &&
    readFileSync(stampFile, "utf8").trim() === hash
  );
}

function run(command, args, log) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: appDir,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NODE_ENV: "production" },
    });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
      if (log) process.stdout.write(chunk);
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
      if (log) process.stderr.write(chunk);
    });
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0
        ? resolve(output)
        : reject(
            new Error(`${command} ${args.join(" ")} exited with ${code}\n${output.slice(-4000)}`),
          ),
    );
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** One build at a time (npm start and the tests may overlap): a lock folder, stale after 5 min. */
async function withLock(task) {
  for (;;) {
    try {
      mkdirSync(lockDir);
      break;
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
      if (Date.now() - statSync(lockDir, { throwIfNoEntry: false })?.mtimeMs > 5 * 60_000) {
        rmSync(lockDir, { recursive: true, force: true });
      }
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
 * Builds the app unless .output/ is up to date. Resolves to whether a build ran.
 * @param {{ log?: boolean }} [options] `log`: show vinxi's output (else it is shown on failure only)
 */
export async function ensureBuilt({ log = false } = {}) {
  if (isBuilt()) return false;
  return withLock(async () => {
    const hash = sourceHash();
    if (isBuilt(hash)) return false;
    const vinxi = join(repoDir, "node_modules", "vinxi", "bin", "cli.mjs");
    const output = await run(process.execPath, [vinxi, "build"], log);
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
