/**
 * The fixture app, a Next.js 16 App Router app built from the packages' dist, served by
 * `next start` and driven over real HTTP: sign-in through a Server Action, Server Components
 * reading `auth()`, the proxy protecting a page, the session rolling through the proxy, the
 * client's seeded session, and sign-out. Slow: the first run builds the app (about a minute).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureApp, get, Jar, startFixture, submitForm } from "./fixture-app.js";

const SESSION_COOKIE = "authjs.session-token";
const MAX_AGE = 4;
const UPDATE_AGE = 2;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let app: FixtureApp;

beforeAll(async () => {
  app = await startFixture("fixture", {
    FIXTURE_MAX_AGE: String(MAX_AGE),
    FIXTURE_UPDATE_AGE: String(UPDATE_AGE),
  });
}, 300_000);

afterAll(async () => {
  await app?.stop();
});

/** Signs alice in through the login page's Server Action form. */
async function signIn(jar: Jar): Promise<Response> {
  return submitForm(app, jar, "/login", { username: "alice", password: "wonderland" });
}

async function text(response: Response): Promise<string> {
  return response.text();
}

describe("the fixture app (next start)", { timeout: 60_000 }, () => {
  it("redirects a signed-out visit of a protected page to the sign-in page with callbackUrl", async () => {
    const response = await get(app, new Jar(), "/dashboard?tab=keys");
    expect([302, 307]).toContain(response.status);
    const location = new URL(response.headers.get("location")!, app.origin);
    expect(location.pathname).toBe("/api/auth/signin");
    expect(location.searchParams.get("callbackUrl")).toBe("/dashboard?tab=keys");
  });

  it("refuses a forged session cookie on a protected page", async () => {
    const jar = new Jar();
    jar.cookies.set(SESSION_COOKIE, "forged");
    const response = await get(app, jar, "/dashboard");
    expect([302, 307]).toContain(response.status);
    expect(jar.cookies.has(SESSION_COOKIE)).toBe(false);
  });

  it("a refused sign-in throws CredentialsSignin to the Server Action, which shows it", async () => {
    const jar = new Jar();
    const response = await submitForm(app, jar, "/login", {
      username: "alice",
      password: "wrong",
    });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/login?error=CredentialsSignin");
    expect(jar.cookies.has(SESSION_COOKIE)).toBe(false);
    const page = await text(await get(app, jar, response.headers.get("location")!));
    expect(page).toContain("Refused: CredentialsSignin");
  });

  it("signs in through a Server Action; Server Components, the proxy, the client and Route Handlers see the session", async () => {
    const jar = new Jar();
    const response = await signIn(jar);
    expect(response.status).toBe(303);
    expect(new URL(response.headers.get("location")!, app.origin).pathname).toBe("/dashboard");
    expect(jar.cookies.get(SESSION_COOKIE)).toMatch(/^[\w-]+\.[\w-]*\.[\w-]+\.[\w-]+\.[\w-]+$/);

    expect(await text(await get(app, jar, "/"))).toContain("Signed in as alice@example.com");
    const dashboard = await get(app, jar, "/dashboard");
    expect(dashboard.status).toBe(200);
    expect(await text(dashboard)).toContain("Dashboard of Alice");
    // Server-rendered with the layout's session: no signed-out flash before hydration.
    expect(await text(await get(app, jar, "/client"))).toContain("authenticated:alice@example.com");
    const me = await get(app, jar, "/api/me");
    expect(await me.json()).toMatchObject({ user: { email: "alice@example.com" } });
    const session = await get(app, jar, "/api/auth/session");
    expect(await session.json()).toMatchObject({ user: { name: "Alice" } });
  });

  it("renders signed out, with the client signed out, without a session", async () => {
    const jar = new Jar();
    expect(await text(await get(app, jar, "/"))).toContain("Signed out");
    expect(await text(await get(app, jar, "/client"))).toContain("unauthenticated:none");
    expect(await (await get(app, jar, "/api/me")).json()).toEqual({ user: null });
  });

  it("keeps a session used only through server-rendered pages rolling through the proxy, respecting updateAge", async () => {
    const jar = new Jar();
    await signIn(jar);
    const first = jar.cookies.get(SESSION_COOKIE);
    expect(first).toBeDefined();
    // Within updateAge the proxy re-issues nothing.
    const early = await get(app, jar, "/dashboard");
    expect(early.headers.getSetCookie().some((c) => c.startsWith(`${SESSION_COOKIE}=`))).toBe(
      false,
    );
    let previous = first;
    // Past maxAge from the sign-in (and core's 15 s of clock tolerance), the session lives on
    // because each visit after updateAge rolled it.
    for (let visit = 0; visit < 8; visit++) {
      await sleep((UPDATE_AGE + 0.5) * 1000);
      const response = await get(app, jar, "/dashboard");
      expect(response.status).toBe(200);
      expect(await text(response)).toContain("Dashboard of Alice");
      const current = jar.cookies.get(SESSION_COOKIE);
      expect(current).toBeDefined();
      expect(current).not.toBe(previous);
      previous = current;
    }
    // The cookie from the sign-in alone has expired by now: the rolling is what kept it.
    const stale = new Jar();
    stale.cookies.set(SESSION_COOKIE, first!);
    const refused = await get(app, stale, "/dashboard");
    expect([302, 307]).toContain(refused.status);
  }, 60_000);

  it("re-issues a session due for renewal from auth() in a Route Handler", async () => {
    const jar = new Jar();
    await signIn(jar);
    const before = jar.cookies.get(SESSION_COOKIE);
    await sleep((UPDATE_AGE + 0.5) * 1000);
    const response = await get(app, jar, "/api/whoami");
    expect(await response.json()).toMatchObject({ user: { email: "alice@example.com" } });
    const after = jar.cookies.get(SESSION_COOKIE);
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
  });

  it("reads a session cookie minted by next-auth v5's own route handlers, and next-auth reads Gatehouse's", async () => {
    const jar = new Jar();
    const csrf = await get(app, jar, "/api/next-auth/csrf");
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const response = await fetch(`${app.origin}/api/next-auth/callback/credentials`, {
      method: "POST",
      redirect: "manual",
      headers: {
        cookie: jar.header(),
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ csrfToken, username: "alice", password: "wonderland" }),
    });
    jar.take(response);
    expect(jar.cookies.get(SESSION_COOKIE)).toBeDefined();
    expect(await text(await get(app, jar, "/"))).toContain("Signed in as alice@example.com");
    expect((await get(app, jar, "/dashboard")).status).toBe(200);

    const ours = new Jar();
    await signIn(ours);
    const session = await get(app, ours, "/api/next-auth/session");
    expect(await session.json()).toMatchObject({ user: { email: "alice@example.com" } });
  });

  it("signs out through a Server Action: the cookie is cleared and the pages are signed out", async () => {
    const jar = new Jar();
    await signIn(jar);
    const response = await submitForm(app, jar, "/dashboard");
    expect(response.status).toBe(303);
    expect(new URL(response.headers.get("location")!, app.origin).pathname).toBe("/");
    expect(jar.cookies.has(SESSION_COOKIE)).toBe(false);
    expect(await text(await get(app, jar, "/"))).toContain("Signed out");
    expect([302, 307]).toContain((await get(app, jar, "/dashboard")).status);
  });
});
