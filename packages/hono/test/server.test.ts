/**
 * A Hono app served over real HTTP by @hono/node-server, with Gatehouse on every path: sign-in,
 * protected routes, sign-out, renewed cookies and bad requests, as a browser meets them.
 */
import { encode } from "@gatehousejs/core/jwt";
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import {
  CSRF_COOKIE,
  credentialsConfig,
  csrfToken,
  Jar,
  listen,
  SECRET,
  SESSION_COOKIE,
  type Served,
  send,
  signIn,
  testApp,
} from "./support.js";

const DAY = 86_400_000;
const HTML = { accept: "text/html,application/xhtml+xml" };

let served: Served;
beforeAll(async () => {
  served = await listen(testApp(credentialsConfig()));
});
afterAll(() => served.close());
afterEach(() => {
  vi.useRealTimers();
});

/** A session cookie for `token`, sealed `age` milliseconds ago. */
async function sessionCookie(token: Record<string, unknown>, age = 0): Promise<string> {
  if (age > 0) vi.useFakeTimers({ now: Date.now() - age, toFake: ["Date"] });
  const value = await encode({ token, secret: SECRET, salt: SESSION_COOKIE });
  vi.useRealTimers();
  return value;
}

describe("credentials sign-in over HTTP", () => {
  test("the CSRF token comes with its cookie, and the sign-in sets the session cookie", async () => {
    const jar = new Jar();
    const token = await csrfToken(served, jar);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(jar.get(CSRF_COOKIE)).toMatch(new RegExp(`^${token}%7C[0-9a-f]{64}$`));

    const answer = await send(served, "/api/auth/callback/credentials", {
      jar,
      form: {
        csrfToken: token,
        username: "alice",
        password: "wonderland",
        callbackUrl: "/account",
      },
    });
    expect(answer.status).toBe(302);
    expect(answer.header("location")).toBe(`http://127.0.0.1:${served.port}/account`);
    const cookie = answer.setCookies.find((line) => line.startsWith(`${SESSION_COOKIE}=`));
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(jar.get(SESSION_COOKIE)).toBeTruthy();

    const session = await send(served, "/api/auth/session", { jar });
    expect(session.json()).toMatchObject({ user: { name: "Alice", email: "alice@example.com" } });
  });

  test("a wrong password: no session cookie, and the session stays null", async () => {
    const jar = new Jar();
    const token = await csrfToken(served, jar);
    const answer = await send(served, "/api/auth/callback/credentials", {
      jar,
      form: { csrfToken: token, username: "alice", password: "queen-of-hearts" },
    });
    expect(answer.status).toBe(302);
    expect(answer.header("location")).toContain("error=CredentialsSignin");
    expect(jar.get(SESSION_COOKIE)).toBeUndefined();
    expect((await send(served, "/", { jar })).json()).toEqual({ user: null });
  });
});

describe("a protected route", () => {
  test("signed out, an API call gets a JSON 401 that no cache keeps", async () => {
    const answer = await send(served, "/api/me");
    expect(answer.status).toBe(401);
    expect(answer.header("content-type")).toMatch(/^application\/json/);
    expect(answer.header("cache-control")).toContain("no-store");
    expect(answer.json()).toEqual({ error: "Unauthenticated", message: "Sign in first." });
  });

  test("signed out, a page is redirected to the sign-in page, which brings the visitor back", async () => {
    const answer = await send(served, "/account?tab=keys", { headers: HTML });
    expect(answer.status).toBe(302);
    expect(answer.header("location")).toBe(
      `/api/auth/signin?callbackUrl=${encodeURIComponent("/account?tab=keys")}`,
    );
    // The sign-in page it points to exists under the prefix.
    const page = await send(served, answer.header("location") ?? "", { headers: HTML });
    expect(page.status).toBe(200);
    expect(page.body).toContain("callback/credentials");
  });

  test("signed in, the handler reads the typed session and user from the context", async () => {
    const jar = new Jar();
    expect((await signIn(served, jar)).status).toBe(302);
    const api = await send(served, "/api/me", { jar });
    expect(api.status).toBe(200);
    expect(api.json()).toEqual({ name: "Alice", expires: expect.any(String) });
    const page = await send(served, "/account", { jar, headers: HTML });
    expect(page.status).toBe(200);
    expect(page.body).toBe("<h1>Hello Alice</h1>");
    expect((await send(served, "/", { jar })).json()).toEqual({
      user: { name: "Alice", email: "alice@example.com" },
    });
  });

  test("a session cookie sealed with another secret counts as none, and is cleared", async () => {
    const forged = await encode({
      token: { sub: "user-1", name: "Mallory" },
      secret: "another-secret-another-secret-0000000",
      salt: SESSION_COOKIE,
    });
    const answer = await send(served, "/api/me", {
      headers: { cookie: `${SESSION_COOKIE}=${forged}` },
    });
    expect(answer.status).toBe(401);
    expect(answer.setCookies.some((line) => line.startsWith(`${SESSION_COOKIE}=;`))).toBe(true);
  });
});

describe("sign-out", () => {
  test("POST /api/auth/signout clears the session cookie; the protected route answers 401 again", async () => {
    const jar = new Jar();
    await signIn(served, jar);
    expect((await send(served, "/api/me", { jar })).status).toBe(200);
    const token = await csrfToken(served, jar);
    const answer = await send(served, "/api/auth/signout", { jar, form: { csrfToken: token } });
    expect(answer.status).toBe(302);
    expect(jar.get(SESSION_COOKIE)).toBeUndefined();
    expect((await send(served, "/api/me", { jar })).status).toBe(401);
  });

  test("a server-rendered sign-out form carries a CSRF token that the sign-out accepts", async () => {
    const jar = new Jar();
    await signIn(served, jar);
    jar.cookies.delete(CSRF_COOKIE);
    const page = await send(served, "/bye", { jar });
    // A new token, so its cookie comes with the page.
    expect(page.setCookies.some((line) => line.startsWith(`${CSRF_COOKIE}=`))).toBe(true);
    const token = /name="csrfToken" value="([0-9a-f]{64})"/.exec(page.body)?.[1];
    expect(token).toBeDefined();
    const answer = await send(served, "/api/auth/signout", {
      jar,
      form: { csrfToken: token ?? "" },
    });
    expect(answer.status).toBe(302);
    expect(jar.get(SESSION_COOKIE)).toBeUndefined();
  });
});

describe("a session near renewal", () => {
  test("the cookie renewed while reading the session reaches the browser with the route's answer", async () => {
    const old = await sessionCookie({ sub: "user-1", name: "Alice" }, 2 * DAY);
    const jar = new Jar();
    jar.set(`${SESSION_COOKIE}=${old}`);
    const answer = await send(served, "/api/me", { jar });
    expect(answer.status).toBe(200);
    const renewed = answer.setCookies.filter((line) => line.startsWith(`${SESSION_COOKIE}=`));
    expect(renewed).toHaveLength(1);
    expect(renewed[0]).toMatch(/HttpOnly/i);
    expect(jar.get(SESSION_COOKIE)).not.toBe(old);
    // The new cookie carries the session, for the full 30 days again (the old one had 28 left).
    const again = await send(served, "/api/me", { jar });
    expect(again.status).toBe(200);
    expect(again.setCookies).toEqual([]);
    const expires = Date.parse((again.json() as { expires: string }).expires);
    expect(expires).toBeGreaterThan(Date.now() + 29 * DAY);
  });

  test("a fresh session cookie is not re-issued", async () => {
    const fresh = await sessionCookie({ sub: "user-1", name: "Alice" });
    const answer = await send(served, "/api/me", {
      headers: { cookie: `${SESSION_COOKIE}=${fresh}` },
    });
    expect(answer.status).toBe(200);
    expect(answer.setCookies).toEqual([]);
  });

  test("a page that is not protected forwards the renewal too", async () => {
    const old = await sessionCookie({ sub: "user-1", name: "Alice" }, 2 * DAY);
    const answer = await send(served, "/", { headers: { cookie: `${SESSION_COOKIE}=${old}` } });
    expect(answer.json()).toMatchObject({ user: { name: "Alice" } });
    expect(answer.setCookies.filter((l) => l.startsWith(`${SESSION_COOKIE}=`))).toHaveLength(1);
  });
});

describe("bad requests", () => {
  // Core answers a missing CSRF token as Auth.js does: back to the sign-in page with
  // error=MissingCSRF (a browser's form), or that URL as JSON for fetch callers; never a 5xx.
  test("a sign-in without its CSRF token is refused, never a 500, and signs nobody in", async () => {
    const jar = new Jar();
    await csrfToken(served, jar);
    const form = { username: "alice", password: "wonderland" };
    const answer = await send(served, "/api/auth/callback/credentials", { jar, form });
    expect(answer.status).toBe(302);
    expect(answer.header("location")).toBe(
      `http://127.0.0.1:${served.port}/api/auth/signin?error=MissingCSRF`,
    );
    const fetched = await send(served, "/api/auth/callback/credentials", {
      jar,
      form,
      headers: { "x-auth-return-redirect": "1" },
    });
    expect(fetched.status).toBe(200);
    expect(fetched.json()).toEqual({ url: expect.stringContaining("error=MissingCSRF") });
    expect(jar.get(SESSION_COOKIE)).toBeUndefined();
  });

  test("a sign-out without the CSRF cookie is refused and keeps the session", async () => {
    const jar = new Jar();
    await signIn(served, jar);
    const token = await csrfToken(served, jar);
    jar.cookies.delete(CSRF_COOKIE);
    const answer = await send(served, "/api/auth/signout", { jar, form: { csrfToken: token } });
    expect(answer.status).toBe(302);
    expect(answer.header("location")).toContain("error=MissingCSRF");
    expect((await send(served, "/api/me", { jar })).status).toBe(200);
  });

  test("a malformed body, an unknown provider and an unknown action are 4xx", async () => {
    const garbage = await send(served, "/api/auth/callback/credentials", {
      body: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(garbage.status).toBeGreaterThanOrEqual(400);
    expect(garbage.status).toBeLessThan(500);
    const provider = await send(served, "/api/auth/callback/nobody", { form: { a: "b" } });
    expect(provider.status).toBe(400);
    const unknown = await send(served, "/api/auth/nothing-here");
    expect(unknown.status).toBe(400);
  });
});
