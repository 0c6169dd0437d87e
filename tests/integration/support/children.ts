/**
 * Child processes for the cross-process tests: a `support/<name>.ts` entry bundled once per test
 * file with esbuild (the workspace's TypeScript sources inside, every other package external), run
 * with node, answering one JSON line. The bundles live in the checkout's node_modules/.cache, so
 * that their imports resolve from there, and are removed after the file's tests.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll } from "vitest";

/** Children bundled for one test file (call at module level: it registers the clean-up). */
export function childProcesses(tag: string) {
  const bundles = new Map<string, Promise<string>>();
  let dir: string | undefined;
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function bundle(name: string): Promise<string> {
    let made = bundles.get(name);
    if (made) return made;
    const cache = fileURLToPath(new URL("../../../node_modules/.cache", import.meta.url));
    mkdirSync(cache, { recursive: true });
    dir ??= mkdtempSync(join(cache, `gh-${tag}-`));
    const outfile = join(dir, `${name}.mjs`);
    made = build({
      entryPoints: [fileURLToPath(new URL(`./${name}.ts`, import.meta.url))],
      outfile,
      bundle: true,
      format: "esm",
      platform: "node",
      target: "node20",
      conditions: ["gatehouse-source"],
      logLevel: "warning",
      plugins: [
        {
          name: "external-node-modules",
          setup(b) {
            b.onResolve({ filter: /^[^./]/ }, (args) =>
              args.path.startsWith("@gatehousejs/")
                ? undefined
                : { path: args.path, external: true },
            );
          },
        },
      ],
    }).then(() => outfile);
    bundles.set(name, made);
    return made;
  }

  /** Runs the child `name` with `env` added; resolves to the JSON line it printed last. */
  async function run<T>(name: string, env: Record<string, string>): Promise<T> {
    const script = await bundle(name);
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [script], {
        env: { ...process.env, ...env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      let err = "";
      child.stdout.on("data", (chunk) => {
        out += chunk;
      });
      child.stderr.on("data", (chunk) => {
        err += chunk;
      });
      child.on("error", reject);
      child.on("close", (code) => {
        if (code !== 0) reject(new Error(`${name} exited with ${code}: ${err.slice(0, 2000)}`));
        else resolve(JSON.parse(out.trim().split("\n").at(-1) ?? "null") as T);
      });
    });
  }

  return { bundle, run };
}
