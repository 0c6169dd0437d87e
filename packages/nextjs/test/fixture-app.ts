/**
 * A fixture app (test/fixture, test/fixture-edge) built once and served by `next start` for a test file: a cookie
 * jar, and the requests a browser without JavaScript makes (pages, form posts to Server Actions).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { freePort } from "../../../tests/support/free-port.js";
import {
  appDirOf,
  ensureBuilt,
  type FixtureName,
  nextBin,
  nextEnv,
} from "./support/build-fixture.mjs";

export const FIXTURE_SECRET = "nextjs-fixture-secret-0123456789-abcdefgh";

/** A running fixture app. */
export interface FixtureApp {
  origin: string;
  stop(): Promise<void>;
  /** What the server printed, for a failing test's message. */
  output(): string;
}

/**
 * Builds a fixture app if needed and starts it on a free port with `env`. `AUTH_URL` is the
 * app's origin unless `env` sets `AUTH_TRUST_HOST` (then the host comes from the request).
 */
export async function startFixture(
  app: FixtureName,
  env: Record<string, string> = {},
): Promise<FixtureApp> {
  await ensureBuilt(app);
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const pinned: Record<string, string> = env.AUTH_TRUST_HOST ? {} : { AUTH_URL: origin };
  const child: ChildProcess = spawn(
    process.execPath,
    [nextBin, "start", "-p", String(port), "-H", "127.0.0.1"],
    {
      cwd: appDirOf(app),
      stdio: ["ignore", "pipe", "pipe"],
      env: nextEnv({
        NODE_ENV: "production",
        AUTH_SECRET: FIXTURE_SECRET,
        ...pinned,
        ...env,
      }),
    },
  );
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next start exited\n${output}`);
    try {
      const response = await fetch(`${origin}/`, { redirect: "manual" });
      await response.arrayBuffer();
      if (response.status < 500) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      child.kill();
      throw new Error(`next start did not answer within 60 s\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    origin,
    output: () => output,
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
    },
  };
}

/** A browser's cookies for one origin: what Set-Cookie set, sent back as Cookie. */
export class Jar {
  readonly cookies = new Map<string, string>();

  /** Applies the response's Set-Cookie values; returns the names it set or cleared. */
  take(response: Response): string[] {
    const names: string[] = [];
    for (const header of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = header.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => {
        const [key = "", val = ""] = a.split("=").map((s) => s.trim());
        if (key.toLowerCase() === "max-age") return Number(val) <= 0;
        if (key.toLowerCase() === "expires") return Date.parse(val) <= Date.now();
        return false;
      });
      if (expired || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
      names.push(name);
    }
    return names;
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }
}

/** A page or route fetched as a browser would, redirects not followed. */
export async function get(app: FixtureApp, jar: Jar, path: string): Promise<Response> {
  const response = await fetch(`${app.origin}${path}`, {
    redirect: "manual",
    headers: { cookie: jar.header(), accept: "text/html" },
  });
  jar.take(response);
  return response;
}

/**
 * Submits a page's Server Action form as a browser without JavaScript does: the form's fields
 * (the hidden `$ACTION_ID_…` Next.js renders among them) posted as multipart to the page.
 */
export async function submitForm(
  app: FixtureApp,
  jar: Jar,
  path: string,
  fields: Record<string, string> = {},
  formIndex = 0,
): Promise<Response> {
  const page = await get(app, jar, path);
  const html = await page.text();
  const forms = html.match(/<form[\s\S]*?<\/form>/g) ?? [];
  const formHtml = forms[formIndex];
  if (!formHtml) throw new Error(`no form ${formIndex} on ${path} (status ${page.status})`);
  const body = new FormData();
  for (const input of formHtml.match(/<input[^>]*>/g) ?? []) {
    const name = /name="([^"]*)"/.exec(input)?.[1];
    if (!name) continue;
    body.set(name, /value="([^"]*)"/.exec(input)?.[1] ?? "");
  }
  for (const [name, value] of Object.entries(fields)) body.set(name, value);
  const response = await fetch(`${app.origin}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: jar.header(), origin: app.origin, accept: "text/html" },
    body,
  });
  jar.take(response);
  return response;
}
