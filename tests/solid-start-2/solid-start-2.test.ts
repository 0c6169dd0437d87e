/**
 * @gatehousejs/solid-start in a real SolidStart 2 app (Vite 8 + Nitro 3, h3 v2 and srvx), built
 * with Node 24 and served on the Node running the tests: the auth route, a credentials sign-in,
 * getSession and requireSession in queries, authMiddleware in src/middleware.ts, the renewed
 * session cookie on page responses, and the browser client in Chromium.
 *
 * Outside CI, a registry that cannot be reached (or a platform without the Node 24 package) skips
 * the suite with a printed reason; with CI=true every setup failure fails it.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, type TestContext, test } from "vitest";
import { chromiumPath, launch } from "../browser/chromium.js";
import {
  FixtureUnavailable,
  type RunningFixture,
  startFixture,
  typecheckFixture,
} from "./fixture.js";

const SESSION_COOKIE = "authjs.session-token";
const USER = { name: "Ada Lovelace", email: "ada@example.com", password: "analytical-engine" };

let app: RunningFixture | undefined;
let skipReason: string | undefined;

beforeAll(async () => {
  try {
    app = await startFixture();
  } catch (error) {
    if (error instanceof FixtureUnavailable && process.env.CI !== "true") {
      skipReason = error.message;
      console.warn(`[solid-start-2] skipped: ${skipReason}`);
      return;
    }
    throw error;
  }
  console.info(
    `[solid-start-2] built on Node ${app.buildNode}, served on Node ${app.serveNode}; ` +
      `install ${app.timings.install}${app.timings.install === "reused" ? "" : " s"}, ` +
      `build ${app.timings.build} s`,
  );
}, 420_000);

afterAll(async () => {
  await app?.close();
});

/** The running app, or a skip (outside CI, with the reason printed in beforeAll). */
function running(context: TestContext): RunningFixture {
  if (!app) context.skip(skipReason ?? "the fixture did not start");
  return app!;
}

/** `name=value` of a cookie among `Set-Cookie` values, or undefined. */
function cookiePair(response: Response, name: string): string | undefined {
  const line = response.headers.getSetCookie().find((value) => value.startsWith(`${name}=`));
  return line?.slice(0, line.indexOf(";"));
}

/** A request to the app with the cookies given; redirects are returned, not followed. */
function get(origin: string, path: string, cookies: string[] = []): Promise<Response> {
  return fetch(`${origin}${path}`, {
    redirect: "manual",
    headers: cookies.length ? { cookie: cookies.join("; ") } : {},
  });
}

/** Signs in with the credentials provider as the `signIn()` client does: csrf, then the callback. */
async function signInWithCredentials(origin: string, password: string): Promise<Response> {
  const csrf = await get(origin, "/api/auth/csrf");
  expect(csrf.status).toBe(200);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const csrfCookie = csrf.headers.getSetCookie().map((value) => value.split(";")[0]!);
  return fetch(`${origin}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "x-auth-return-redirect": "1",
      cookie: csrfCookie.join("; "),
    },
    body: new URLSearchParams({ csrfToken, email: USER.email, password }),
  });
}

/** A session cookie (`name=value`) for the fixture's user. */
async function sessionCookie(origin: string): Promise<string> {
  const response = await signInWithCredentials(origin, USER.password);
  const pair = cookiePair(response, SESSION_COOKIE);
  expect(pair).toBeDefined();
  return pair!;
}

describe("@gatehousejs/solid-start on SolidStart 2 (Vite + Nitro), built on Node 24", () => {
  test("the app was built by Node 24 and is served by the test runner's Node", (context) => {
    const fixture = running(context);
    expect(fixture.buildNode).toMatch(/^v24\./);
    expect(fixture.serveNode).toBe(process.version);
  });

  test("the app's route, queries and middleware type-check against SolidStart 2's types", {
    timeout: 120_000,
  }, async (context) => {
    running(context);
    await expect(typecheckFixture()).resolves.toBe("");
  });

  test("GET /api/auth/providers answers the configured providers under the prefix", async (context) => {
    const { origin } = running(context);
    const response = await get(origin, "/api/auth/providers");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(await response.json()).toEqual({
      credentials: {
        id: "credentials",
        name: "Credentials",
        type: "credentials",
        signinUrl: `${origin}/api/auth/signin/credentials`,
        callbackUrl: `${origin}/api/auth/callback/credentials`,
      },
    });
  });

  test("GET /api/auth/session answers null without a session cookie", async (context) => {
    const { origin } = running(context);
    const response = await get(origin, "/api/auth/session");
    expect(response.status).toBe(200);
    expect(await response.json()).toBeNull();
    expect(cookiePair(response, SESSION_COOKIE)).toBeUndefined();
  });

  test("an unknown action under the prefix is a 400, a path beside it is left to the app", async (context) => {
    const { origin } = running(context);
    const unknown = await get(origin, "/api/auth/nonsense");
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ error: "UnknownAction" });
    // The route handler returns undefined there, and SolidStart renders its app instead.
    const beside = await get(origin, "/api/authx");
    expect(beside.status).toBe(200);
    expect(beside.headers.get("content-type")).toContain("text/html");
  });

  test("the sign-in page is served under the prefix", async (context) => {
    const { origin } = running(context);
    const response = await get(origin, "/api/auth/signin");
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain(`action="${origin}/api/auth/callback/credentials"`);
  });

  test("a credentials sign-in sets the session cookie and /session then names the user", async (context) => {
    const { origin } = running(context);
    const response = await signInWithCredentials(origin, USER.password);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ url: origin });
    const pair = cookiePair(response, SESSION_COOKIE);
    expect(pair).toBeDefined();
    const line = response.headers.getSetCookie().find((v) => v.startsWith(`${SESSION_COOKIE}=`))!;
    expect(line).toMatch(/HttpOnly/i);
    expect(line).toMatch(/SameSite=Lax/i);
    const session = await get(origin, "/api/auth/session", [pair!]);
    expect(await session.json()).toMatchObject({ user: { name: USER.name, email: USER.email } });
  });

  test("a form POST of the sign-in page signs in too (303/302 to the callback URL)", async (context) => {
    const { origin } = running(context);
    const csrf = await get(origin, "/api/auth/csrf");
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const response = await fetch(`${origin}/api/auth/callback/credentials`, {
      method: "POST",
      redirect: "manual",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        cookie: csrf.headers
          .getSetCookie()
          .map((v) => v.split(";")[0])
          .join("; "),
      },
      body: new URLSearchParams({
        csrfToken,
        email: USER.email,
        password: USER.password,
        callbackUrl: `${origin}/protected`,
      }),
    });
    expect([302, 303]).toContain(response.status);
    expect(response.headers.get("location")).toBe(`${origin}/protected`);
    expect(cookiePair(response, SESSION_COOKIE)).toBeDefined();
  });

  test("a wrong password sets no session and reports CredentialsSignin", async (context) => {
    const { origin } = running(context);
    const response = await signInWithCredentials(origin, "wrong password");
    expect(response.status).toBe(200);
    const { url } = (await response.json()) as { url: string };
    expect(new URL(url).searchParams.get("error")).toBe("CredentialsSignin");
    expect(cookiePair(response, SESSION_COOKIE)).toBeUndefined();
  });

  test("the SSR-protected page (requireSession in a query) redirects to / without a session", async (context) => {
    const { origin } = running(context);
    const response = await get(origin, "/protected");
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/");
    const forged = await get(origin, "/protected", [`${SESSION_COOKIE}=not-a-token`]);
    expect(forged.status).toBe(302);
    expect(forged.headers.get("location")).toBe("/");
  });

  test("the SSR-protected page renders the user with a session, and renews the session cookie", async (context) => {
    const { origin } = running(context);
    const cookie = await sessionCookie(origin);
    const response = await get(origin, "/protected", [cookie]);
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toMatch(/data-testid="protected-user">(<!--[^>]*-->)*Ada Lovelace/);
    expect(html).toContain(USER.email);
    // updateAge: 0 re-issues the cookie on every check: getSession appends it to the page.
    const renewed = cookiePair(response, SESSION_COOKIE);
    expect(renewed).toBeDefined();
    expect(renewed).not.toBe(cookie);
  });

  test("the home page reads the session with getSession in a query", async (context) => {
    const { origin } = running(context);
    const signedOut = await (await get(origin, "/")).text();
    expect(signedOut).toContain('data-testid="signed-out"');
    const cookie = await sessionCookie(origin);
    const response = await get(origin, "/", [cookie]);
    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(/Signed in as (<!--[^>]*-->)*Ada Lovelace/);
    expect(cookiePair(response, SESSION_COOKIE)).toBeDefined();
  });

  test("the middleware-protected paths redirect to / without a session", async (context) => {
    const { origin } = running(context);
    for (const path of ["/members", "/members/", "/Members", "/members/deep/page", "//members"]) {
      const response = await get(origin, path);
      expect(response.status, path).toBe(302);
      expect(response.headers.get("location"), path).toBe("/");
    }
    const forged = await get(origin, "/members", [`${SESSION_COOKIE}=not-a-token`]);
    expect(forged.status).toBe(302);
  });

  test("the middleware-protected page renders with a session and renews its cookie", async (context) => {
    const { origin } = running(context);
    const cookie = await sessionCookie(origin);
    const response = await get(origin, "/members", [cookie]);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('data-testid="members">Members only');
    expect(cookiePair(response, SESSION_COOKIE)).toBeDefined();
  });

  test("pages outside the protected list and the auth routes answer without a session", async (context) => {
    const { origin } = running(context);
    expect((await get(origin, "/signin")).status).toBe(200);
    expect((await get(origin, "/membership")).status).toBe(200);
    expect((await get(origin, "/api/auth/csrf")).status).toBe(200);
  });

  describe.skipIf(!chromiumPath)("in Chromium", () => {
    let browser: Browser | undefined;
    afterAll(async () => {
      await browser?.close();
    });

    test("signIn() of the client signs in, the protected pages then render, and survive a reload", {
      timeout: 60_000,
    }, async (context) => {
      const { origin } = running(context);
      browser = await launch();
      const page = await (await browser.newContext()).newPage();

      /** Waits for the app to have hydrated the page (it then marks `<html data-hydrated>`). */
      const hydrated = () =>
        page.locator("html[data-hydrated=true]").waitFor({ state: "attached" });

      // Signed out, client-side navigation to the SSR-protected page ends on the home page: the
      // query's server function answers requireSession's redirect, and the router follows it.
      await page.goto(`${origin}/signin`);
      await hydrated();
      const serverFunctionCalls: string[] = [];
      page.on("request", (request) => {
        if (new URL(request.url()).pathname.startsWith("/_server")) {
          serverFunctionCalls.push(request.url());
        }
      });
      await page.getByRole("link", { name: "Protected" }).click();
      await page.waitForURL(`${origin}/`);
      await expect.poll(() => page.getByTestId("signed-out").count()).toBe(1);
      expect(serverFunctionCalls.length).toBeGreaterThan(0);

      // A wrong password shows the error without leaving the page.
      await page.goto(`${origin}/signin`);
      await hydrated();
      await page.getByLabel("Email").fill(USER.email);
      await page.getByLabel("Password").fill("wrong password");
      await page.getByRole("button", { name: "Sign in" }).click();
      await expect.poll(() => page.getByRole("alert").textContent()).toBe("CredentialsSignin");
      expect(page.url()).toBe(`${origin}/signin`);

      await page.getByLabel("Password").fill(USER.password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${origin}/protected`);
      await expect
        .poll(() => page.getByTestId("protected-user").textContent())
        .toBe(`${USER.name} (${USER.email})`);

      await page.goto(`${origin}/members`);
      await expect.poll(() => page.getByTestId("members").count()).toBe(1);
      await page.goto(`${origin}/`);
      await page.reload();
      await expect
        .poll(() => page.getByTestId("signed-in").textContent())
        .toBe(`Signed in as ${USER.name}`);
    });
  });
});
