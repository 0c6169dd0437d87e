/**
 * Runs the `gatehouse` binary as users do: `node dist/bin.js …` in a child process. The package
 * is built first (`tsc -b`, which also builds the core it references); in CI `npm run build`
 * already did, and the build is then a quick no-op. Test files build under a lock so that two
 * workers never write dist/ at once.
 */
import { spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname, "../../../..");
export const BIN = join(ROOT, "packages/cli/dist/bin.js");
const LOCK = join(tmpdir(), "gatehouse-cli-build-lock");

function sleep(ms: number) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Builds the package (once per test file; serialized across files). */
export function buildCli(): void {
  for (let waited = 0; ; waited += 100) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      // A lock older than two minutes was left by a killed run.
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > 120_000)
          rmSync(LOCK, { recursive: true, force: true });
      } catch {}
      if (waited > 180_000) throw new Error("timed out waiting for another test file's build");
      sleep(100);
    }
  }
  try {
    const tsc = spawnSync(
      process.execPath,
      [join(ROOT, "node_modules/typescript/bin/tsc"), "-b", "packages/cli/tsconfig.build.json"],
      { cwd: ROOT, encoding: "utf8" },
    );
    if (tsc.status !== 0) throw new Error(`tsc -b failed:\n${tsc.stdout}${tsc.stderr}`);
    // Core's JavaScript comes from its bundle step (tsc writes its declarations only); the test
    // apps' configurations import it. `npm run build` makes it; a fresh checkout may lack it.
    if (!existsSync(join(ROOT, "packages/core/dist/index.js"))) {
      const bundle = spawnSync(process.execPath, ["packages/core/scripts/bundle.mjs"], {
        cwd: ROOT,
        encoding: "utf8",
      });
      if (bundle.status !== 0) throw new Error(`core bundle failed:\n${bundle.stderr}`);
    }
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/** What a run printed and how it ended. */
export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of a run: no AUTH_ or DATABASE_ variables of the test process leak in. */
function cleanEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(AUTH_|DATABASE_URL$|EMAIL_SERVER$|VERCEL$|CF_PAGES$)/.test(key)) env[key] = value;
  }
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

/** Runs `gatehouse <args>` in `cwd` and waits for it to exit. */
export function gatehouse(
  args: string[],
  options: { cwd?: string; env?: Record<string, string | undefined> } = {},
): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? ROOT,
      env: cleanEnv(options.env ?? {}),
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", fail);
    child.on("close", (status) => done({ status, stdout, stderr }));
  });
}

/**
 * A temporary app folder with `files` (path → contents) and the workspace's node_modules linked
 * in, so its configuration imports `@gatehousejs/core` as an installed app would.
 */
export function appFolder(files: Record<string, string>): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-app-"));
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
