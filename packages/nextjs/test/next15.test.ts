/**
 * Next.js 15 (issue 24): a small app of its own (test/next15/.app, installed with `npm ci` from
 * its lockfile, Gatehouse unpacked from `npm pack` tarballs) built by Next.js 15.5 and served by
 * `next start`: `middleware.js` on the edge runtime protecting /protected with `protect`,
 * `auth()` in Server Components, sign-in through the auth route and through a Server Action, and
 * sign-out through a Server Action.
 *
 * Outside CI, a registry that cannot be reached skips the suite with the reason; with CI=true
 * every setup failure fails it.
 */
import { existsSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FixtureApp } from "./fixture-app.js";
import { get, Jar, submitForm } from "./fixture-app.js";
import { appDir, FixtureUnavailable, type RunningFixture, startFixture } from "./next15/fixture.js";

const SESSION_COOKIE = "authjs.session-token";

let fixture: RunningFixture | undefined;
let unavailable: string | undefined;
/** The running app in the shape of fixture-app.ts's helpers. */
let app: FixtureApp;

beforeAll(async () => {
  try {
    fixture = await startFixture();
  } catch (error) {
    if (error instanceof FixtureUnavailable && process.env.CI !== "true") {
      unavailable = error.message;
      console.warn(`Skipping the Next.js 15 fixture: ${error.message}`);
      return;
    }
    throw error;
  }
  const running = fixture;
  app = { origin: running.origin, output: () => running.output(), stop: () => running.close() };
}, 900_000);

afterAll(async () => {
  await fixture?.close();
});

/** Signs ada in through the auth route as the built-in sign-in page's form does. */
async function signInByRoute(jar: Jar, password = "analytical-engine"): Promise<Response> {
  const csrf = await get(app, jar, "/api/auth/csrf");
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const response = await fetch(`${app.origin}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: jar.header(), "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrfToken, username: "ada", password }),
  });
  jar.take(response);
  return response;
}

/** Every file `next build` traced for the server's routes and pages, as absolute paths. */
function tracedFiles(): string[] {
  const traced = new Set<string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".nft.json")) {
        const { files } = JSON.parse(readFileSync(path, "utf8")) as { files: string[] };
        for (const file of files) traced.add(resolve(dirname(path), file));
      }
    }
  };
  walk(join(appDir, ".next", "server"));
  return [...traced];
}

function redirectedTo(response: Response): URL {
  expect([302, 303, 307]).toContain(response.status);
  return new URL(response.headers.get("location")!, app.origin);
}

it("the fixture installs every runtime dependency of core, at a version core accepts", () => {
  // The tarball of core is unpacked without its dependencies: the fixture's own package.json
  // must list them, and a dependency core gains must be added there too.
  const read = (path: string) =>
    JSON.parse(readFileSync(path, "utf8")) as { dependencies: Record<string, string> };
  const core = read(join(import.meta.dirname, "..", "..", "core", "package.json")).dependencies;
  const fixture = read(join(appDir, "package.json")).dependencies;
  for (const [name, range] of Object.entries(core)) {
    expect(fixture[name], name).toBeDefined();
    // Core's ranges are carets on the version the fixture pins: the same major, not older.
    const wanted = range.replace(/^\^/, "").split(".").map(Number);
    const pinned = fixture[name]!.split(".").map(Number);
    expect(pinned[0], name).toBe(wanted[0]);
    const older = pinned[1]! < wanted[1]! || (pinned[1] === wanted[1] && pinned[2]! < wanted[2]!);
    expect(older, `${name} ${fixture[name]} is older than ${range}`).toBe(false);
  }
});

describe("Next.js 15 with middleware.js on the edge runtime", { timeout: 60_000 }, () => {
  it("runs on Next.js 15.5 from the fixture's own install, with Gatehouse from the tarballs", (ctx) => {
    if (unavailable) return ctx.skip(unavailable);
    expect(fixture!.next).toMatch(/^15\.5\./);
    const lock = JSON.parse(readFileSync(join(appDir, "package-lock.json"), "utf8")) as {
      packages: Record<string, { version?: string }>;
    };
    expect(fixture!.next).toBe(lock.packages["node_modules/next"]?.version);
    for (const name of ["core", "nextjs"]) {
      const installed = join(appDir, "node_modules", "@gatehousejs", name);
      // A folder of the tarball's files, not a link into the workspace (whose `next` is 16).
      expect(lstatSync(installed).isSymbolicLink()).toBe(false);
      expect(existsSync(join(installed, "dist", "index.js"))).toBe(true);
    }
    // Nothing the server runs came from outside the app: no file traced for a route or page
    // (Next's own files included) is outside .app/, so none is the repository's Next.js 16.
    const outside = tracedFiles().filter((file) => !file.startsWith(`${appDir}${sep}`));
    expect(outside).toEqual([]);
    expect(tracedFiles().some((file) => file.includes(`${sep}node_modules${sep}next${sep}`))).toBe(
      true,
    );
    // The middleware was built for the edge runtime.
    const manifest = JSON.parse(
      readFileSync(join(appDir, ".next", "server", "middleware-manifest.json"), "utf8"),
    ) as { middleware: Record<string, { files: string[] }> };
    expect(Object.keys(manifest.middleware)).toEqual(["/"]);
    expect(manifest.middleware["/"]!.files.length).toBeGreaterThan(0);
    console.info(
      `Next.js ${fixture!.next}: install ${fixture!.steps.install}, tarballs ${fixture!.steps.unpack}, build ${fixture!.steps.build} (${fixture!.steps.seconds} s)`,
    );
  });

  it("sends a signed-out visitor of /protected to the sign-in page with callbackUrl", async (ctx) => {
    if (unavailable) return ctx.skip(unavailable);
    const response = await get(app, new Jar(), "/protected?from=next15");
    const location = redirectedTo(response);
    expect(location.pathname).toBe("/api/auth/signin");
    expect(location.searchParams.get("callbackUrl")).toBe("/protected?from=next15");
    // An unprotected page renders, signed out.
    const home = await get(app, new Jar(), "/");
    expect(home.status).toBe(200);
    expect(await home.text()).toContain("Signed out");
  });

  it("refuses a wrong password at the auth route and sets no session", async (ctx) => {
    if (unavailable) return ctx.skip(unavailable);
    const jar = new Jar();
    const response = await signInByRoute(jar, "difference-engine");
    expect(jar.cookies.has(SESSION_COOKIE)).toBe(false);
    expect(redirectedTo(response).searchParams.get("error")).toBe("CredentialsSignin");
    expect(redirectedTo(await get(app, jar, "/protected")).pathname).toBe("/api/auth/signin");
  });

  it("signs in through the auth route (CSRF + credentials); /protected and auth() show the user", async (ctx) => {
    if (unavailable) return ctx.skip(unavailable);
    const jar = new Jar();
    await signInByRoute(jar);
    expect(jar.cookies.has(SESSION_COOKIE), app.output().slice(-2000)).toBe(true);
    const page = await get(app, jar, "/protected");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Protected page of Ada Lovelace");
    const home = await get(app, jar, "/");
    expect(await home.text()).toContain("Signed in as ada@example.com");
    const session = await get(app, jar, "/api/auth/session");
    expect(((await session.json()) as { user?: { email?: string } }).user?.email).toBe(
      "ada@example.com",
    );
  });

  it("refuses a forged or tampered session cookie: the middleware decrypts it", async (ctx) => {
    if (unavailable) return ctx.skip(unavailable);
    const forged = new Jar();
    forged.cookies.set(SESSION_COOKIE, "forged");
    expect(redirectedTo(await get(app, forged, "/protected")).pathname).toBe("/api/auth/signin");

    const real = new Jar();
    await signInByRoute(real);
    const token = real.cookies.get(SESSION_COOKIE)!;
    const tampered = new Jar();
    const flipped = token.at(-2) === "A" ? "B" : "A";
    tampered.cookies.set(SESSION_COOKIE, `${token.slice(0, -2)}${flipped}${token.slice(-1)}`);
    expect(redirectedTo(await get(app, tampered, "/protected")).pathname).toBe("/api/auth/signin");
    const home = await get(app, tampered, "/");
    expect(await home.text()).toContain("Signed out");
  });

  it("signs in through a Server Action form, then signs out through one", async (ctx) => {
    if (unavailable) return ctx.skip(unavailable);
    const jar = new Jar();
    const refused = await submitForm(app, jar, "/login", {
      username: "ada",
      password: "wrong",
    });
    expect(redirectedTo(refused).searchParams.get("error")).toBe("CredentialsSignin");
    expect(jar.cookies.has(SESSION_COOKIE)).toBe(false);

    const signedIn = await submitForm(app, jar, "/login", {
      username: "ada",
      password: "analytical-engine",
    });
    expect(redirectedTo(signedIn).pathname).toBe("/protected");
    expect(jar.cookies.has(SESSION_COOKIE), app.output().slice(-2000)).toBe(true);
    const page = await get(app, jar, "/protected");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Protected page of Ada Lovelace");

    const signedOut = await submitForm(app, jar, "/protected");
    expect(redirectedTo(signedOut).pathname).toBe("/");
    expect(jar.cookies.has(SESSION_COOKIE)).toBe(false);
    expect(redirectedTo(await get(app, jar, "/protected")).pathname).toBe("/api/auth/signin");
  });

  it("signs out through the auth route (CSRF)", async (ctx) => {
    if (unavailable) return ctx.skip(unavailable);
    const jar = new Jar();
    await signInByRoute(jar);
    const { csrfToken } = (await (await get(app, jar, "/api/auth/csrf")).json()) as {
      csrfToken: string;
    };
    const response = await fetch(`${app.origin}/api/auth/signout`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: jar.header(), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrfToken }),
    });
    jar.take(response);
    expect(jar.cookies.has(SESSION_COOKIE)).toBe(false);
    expect(redirectedTo(await get(app, jar, "/protected")).pathname).toBe("/api/auth/signin");
  });
});
