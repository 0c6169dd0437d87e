/**
 * `middleware.ts` on the edge runtime (Next.js 15's way; Next.js 16 still serves it), in a
 * fixture app built from dist and served by `next start`: `export default auth((req) => …)`
 * with next-auth's `authorized` callback deciding, a verified check, and the session rolling
 * through the middleware.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureApp, get, Jar, startFixture } from "./fixture-app.js";

const SESSION_COOKIE = "authjs.session-token";
const UPDATE_AGE = 2;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let app: FixtureApp;

beforeAll(async () => {
  // No AUTH_URL here: the host is trusted (AUTH_TRUST_HOST), as on Vercel or in development.
  app = await startFixture("fixture-edge", {
    AUTH_TRUST_HOST: "true",
    FIXTURE_MAX_AGE: "3600",
    FIXTURE_UPDATE_AGE: String(UPDATE_AGE),
  });
}, 300_000);

afterAll(async () => {
  await app?.stop();
});

/** Signs alice in through the auth route as the built-in sign-in page's form does. */
async function signIn(jar: Jar): Promise<void> {
  const csrf = await get(app, jar, "/api/auth/csrf");
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const response = await fetch(`${app.origin}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: jar.header(), "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrfToken, username: "alice", password: "wonderland" }),
  });
  jar.take(response);
  if (!jar.cookies.has(SESSION_COOKIE)) {
    const where = response.headers.get("location");
    throw new Error(
      `sign-in answered ${response.status} to ${where}\n${app.output().slice(-2000)}`,
    );
  }
}

describe("middleware.ts on the edge runtime", { timeout: 60_000 }, () => {
  it("sends a signed-out visitor the authorized callback refuses to the sign-in page", async () => {
    const response = await get(app, new Jar(), "/dashboard?from=edge");
    expect([302, 307]).toContain(response.status);
    const location = new URL(response.headers.get("location")!, app.origin);
    expect(location.pathname).toBe("/api/auth/signin");
    expect(location.searchParams.get("callbackUrl")).toBe("/dashboard?from=edge");
  });

  it("refuses a forged cookie: the check is a decryption, not the cookie's presence", async () => {
    const jar = new Jar();
    jar.cookies.set(SESSION_COOKIE, "forged");
    expect([302, 307]).toContain((await get(app, jar, "/dashboard")).status);
  });

  it("lets a signed-in visitor through, and the wrapped handler sees req.auth", async () => {
    const jar = new Jar();
    await signIn(jar);
    const dashboard = await get(app, jar, "/dashboard");
    expect(dashboard.status).toBe(200);
    expect(await dashboard.text()).toContain("Dashboard of Alice");
    // The handler sends alice (not the admin) away from /admin.
    const admin = await get(app, jar, "/admin");
    expect([302, 307]).toContain(admin.status);
    expect(new URL(admin.headers.get("location")!, app.origin).pathname).toBe("/");
  });

  it("renews a session due for renewal through the middleware, not before updateAge", async () => {
    const jar = new Jar();
    await signIn(jar);
    const first = jar.cookies.get(SESSION_COOKIE);
    const early = await get(app, jar, "/");
    expect(early.headers.getSetCookie().some((c) => c.startsWith(`${SESSION_COOKIE}=`))).toBe(
      false,
    );
    await sleep((UPDATE_AGE + 0.5) * 1000);
    const due = await get(app, jar, "/");
    expect(await due.text()).toContain("Signed in as alice@example.com");
    expect(jar.cookies.get(SESSION_COOKIE)).not.toBe(first);
  });
});
