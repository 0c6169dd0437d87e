/**
 * A small real SolidStart 1.x app (`.router-app/`: `@solidjs/start` 1.3, vinxi, Nitro's
 * node-server), built with `vinxi build` and served by Node, so tests can ask the real router
 * what it renders for a path. Gatehouse is bundled from its TypeScript sources (the
 * "gatehouse-source" condition in the app's config): no `npm run build` needed.
 *
 * Each run copies the app to its own folder under the repository's `.tmp/`, builds it once and
 * removes it at the end, so two runs in one checkout never share a build.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { freePort } from "../../../tests/support/free-port.js";

const source = join(import.meta.dirname, ".router-app");
const repoRoot = join(import.meta.dirname, "..", "..", "..");
const vinxi = join(repoRoot, "node_modules", "vinxi", "bin", "cli.mjs");

/** The test runner's environment without what would change the build or the app. */
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

function tail(output: string, lines = 30): string {
  return output.trimEnd().split("\n").slice(-lines).join("\n");
}

function collect(child: ChildProcess): () => string {
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  return () => output;
}

/** `vinxi build` in `dir`, in production mode. */
function build(dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [vinxi, "build"], {
      cwd: dir,
      env: cleanEnv({ NODE_ENV: "production" }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const output = collect(child);
    const timer = setTimeout(() => child.kill("SIGKILL"), 300_000);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      if (code === 0 && existsSync(join(dir, ".output", "server", "index.mjs"))) resolve();
      else reject(new Error(`vinxi build failed (exit ${code}):\n${tail(output())}`));
    });
  });
}

/** The built app, running. */
export interface RouterApp {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** What the server printed so far. */
  output(): string;
  close(): Promise<void>;
}

/** Copies, builds and starts the app; resolves once its auth route answers. */
export async function startRouterApp(): Promise<RouterApp> {
  const dir = join(repoRoot, ".tmp", `router-app-${process.pid}-${randomBytes(3).toString("hex")}`);
  mkdirSync(dir, { recursive: true });
  const remove = () => rmSync(dir, { recursive: true, force: true });
  let child: ChildProcess | undefined;
  try {
    cpSync(source, dir, { recursive: true });
    await build(dir);
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, [join(dir, ".output", "server", "index.mjs")], {
      cwd: dir,
      env: cleanEnv({
        NODE_ENV: "production",
        PORT: String(port),
        HOST: "127.0.0.1",
        AUTH_SECRET: randomBytes(32).toString("base64url"),
        AUTH_TRUST_HOST: "true",
      }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const output = collect(child);
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (child.exitCode !== null) {
        throw new Error(`the built app exited (${child.exitCode}):\n${tail(output())}`);
      }
      const ready = await fetch(`${origin}/api/auth/providers`).then(
        (response) => response.ok,
        () => false,
      );
      if (ready) break;
      if (Date.now() > deadline) throw new Error(`the app did not answer:\n${tail(output())}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const running = child;
    return {
      origin,
      output,
      close: async () => {
        await new Promise<void>((resolve) => {
          if (running.exitCode !== null) return resolve();
          running.once("exit", () => resolve());
          running.kill("SIGTERM");
        });
        remove();
      },
    };
  } catch (error) {
    child?.kill("SIGKILL");
    remove();
    throw error;
  }
}

/** An answer of {@link rawGet}. */
export interface RawAnswer {
  status: number;
  location: string | undefined;
  setCookie: string[];
  body: string;
}

/**
 * A GET whose path goes on the request line exactly as given: `fetch` would resolve `..` and
 * `%2e%2e` segments and turn `\` into `/` before sending, hiding what a server receives.
 */
export function rawGet(origin: string, path: string, cookie?: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: hostname, port, path, method: "GET", headers: cookie ? { cookie } : {} },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
        });
        res.on("end", () => {
          const location = res.headers.location;
          resolve({
            status: res.statusCode ?? 0,
            location: Array.isArray(location) ? location[0] : location,
            setCookie: res.headers["set-cookie"] ?? [],
            body,
          });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end();
  });
}
