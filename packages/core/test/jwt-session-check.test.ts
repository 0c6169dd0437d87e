import { Auth } from "@gatehousejs/core";
import { decode, encode } from "@gatehousejs/core/jwt";
import type { AuthConfig, JWT } from "@gatehousejs/core/types";
import { afterEach, describe, expect, test, vi } from "vitest";
import {
  alice,
  credentialsConfig,
  csrfToken,
  Jar,
  ORIGIN,
  SECRET,
  send,
  setCookies,
  signInAlice,
} from "./helpers.js";

const COOKIE = "authjs.session-token";

async function cookieFor(token: JWT, secret: string | string[] = SECRET, maxAge?: number) {
  return encode({ token, secret, salt: COOKIE, maxAge });
}

function sessionRequest(cookie?: string, origin = ORIGIN) {
  const headers = new Headers();
  if (cookie) headers.set("cookie", cookie);
  return new Request(`${origin}/auth/session`, { headers });
}

afterEach(() => {
  vi.useRealTimers();
});

describe("GET /session with JWT sessions", () => {
  test("without a cookie answers null, uncached, and sets no cookie", async () => {
    const response = await Auth(sessionRequest(), credentialsConfig());
    expect(response.status).toBe(200);
    expect(await response.json()).toBeNull();
    expect(response.headers.get("cache-control")).toBe("private, no-cache, no-store");
    expect(response.headers.get("pragma")).toBe("no-cache");
    expect(response.headers.get("expires")).toBe("0");
    expect(response.headers.getSetCookie()).toEqual([]);
  });

  test("a valid cookie gives name, email and image only, not the subject", async () => {
    const token = await cookieFor({
      sub: "user-1",
      name: "Alice",
      email: "a@x.io",
      picture: "p.png",
      role: "admin",
    });
    const response = await Auth(sessionRequest(`${COOKIE}=${token}`), credentialsConfig());
    const body = await response.json();
    expect(body.user).toEqual({ name: "Alice", email: "a@x.io", image: "p.png" });
    expect(body).not.toHaveProperty("sub");
    expect(JSON.stringify(body)).not.toContain("admin");
    expect(Date.parse(body.expires)).toBeGreaterThan(Date.now() + 29 * 86400_000);
  });

  test("a fresh token is not re-issued inside updateAge, and expires says when it ends", async () => {
    const token = await cookieFor({ sub: "1", name: "A" });
    const { iat } = (await decode({ token, secret: SECRET, salt: COOKIE })) as JWT;
    const response = await Auth(sessionRequest(`${COOKIE}=${token}`), credentialsConfig());
    expect(response.headers.getSetCookie()).toEqual([]);
    const body = await response.json();
    expect(body.expires).toBe(new Date((iat! + 30 * 86400) * 1000).toISOString());
  });

  test("a token older than updateAge is re-issued with a new expiry", async () => {
    vi.useFakeTimers({ now: Date.now() - 2 * 86400_000, toFake: ["Date"] });
    const token = await cookieFor({ sub: "1", name: "A" });
    vi.useRealTimers();
    const response = await Auth(sessionRequest(`${COOKIE}=${token}`), credentialsConfig());
    const cookie = setCookies(response).get(COOKIE);
    expect(cookie).toBeDefined();
    const reissued = (await decode({ token: cookie!.value, secret: SECRET, salt: COOKIE })) as JWT;
    expect(reissued.sub).toBe("1");
    expect(reissued.iat).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) - 1);
    const expires = cookie!.raw.match(/Expires=([^;]+)/)?.[1];
    expect(Math.abs(Date.parse(expires!) - (Date.now() + 30 * 86400_000))).toBeLessThan(5000);
  });

  test("updateAge 0 re-issues the cookie on every check", async () => {
    const token = await cookieFor({ sub: "1" });
    const config = credentialsConfig({ session: { updateAge: 0 } });
    const response = await Auth(sessionRequest(`${COOKIE}=${token}`), config);
    expect(setCookies(response).has(COOKIE)).toBe(true);
  });

  test("the jwt callback runs on every check; a changed token is re-issued", async () => {
    const jwt = vi.fn(({ token }: { token: JWT }) => ({
      ...token,
      visits: Number(token.visits ?? 0) + 1,
    }));
    const config = credentialsConfig({ callbacks: { jwt } });
    const token = await cookieFor({ sub: "1" });
    const response = await Auth(sessionRequest(`${COOKIE}=${token}`), config);
    expect(jwt).toHaveBeenCalledTimes(1);
    expect(jwt.mock.calls[0]![0]).not.toHaveProperty("trigger");
    const reissued = await decode({
      token: setCookies(response).get(COOKIE)!.value,
      secret: SECRET,
      salt: COOKIE,
    });
    expect(reissued?.visits).toBe(1);
  });

  test("a token mutated in place by the jwt callback is re-issued too", async () => {
    const config = credentialsConfig({
      callbacks: {
        jwt: ({ token }) => {
          token.flag = true;
          return token;
        },
      },
    });
    const response = await Auth(
      sessionRequest(`${COOKIE}=${await cookieFor({ sub: "1" })}`),
      config,
    );
    const reissued = await decode({
      token: setCookies(response).get(COOKIE)!.value,
      secret: SECRET,
      salt: COOKIE,
    });
    expect(reissued?.flag).toBe(true);
  });

  test("a jwt callback returning null ends the session and clears the cookie", async () => {
    const config = credentialsConfig({ callbacks: { jwt: () => null } });
    const response = await Auth(
      sessionRequest(`${COOKIE}=${await cookieFor({ sub: "1" })}`),
      config,
    );
    expect(await response.json()).toBeNull();
    expect(setCookies(response).get(COOKIE)?.raw).toMatch(/Max-Age=0/);
  });

  test("the session callback decides what the client sees, and the session event fires", async () => {
    const sessionEvent = vi.fn();
    const config = credentialsConfig({
      callbacks: { session: ({ session, token }) => ({ ...session, userId: token?.sub }) },
      events: { session: sessionEvent },
    });
    const response = await Auth(
      sessionRequest(`${COOKIE}=${await cookieFor({ sub: "42", name: "N" })}`),
      config,
    );
    const body = await response.json();
    expect(body.userId).toBe("42");
    expect(sessionEvent).toHaveBeenCalledWith({
      session: body,
      token: expect.objectContaining({ sub: "42" }),
    });
  });

  test("an expired token answers null, clears the cookie and logs one JWTSessionError", async () => {
    vi.useFakeTimers({ now: Date.now() - 3 * 3600_000, toFake: ["Date"] });
    const token = await cookieFor({ sub: "1" }, SECRET, 60);
    vi.useRealTimers();
    const config = credentialsConfig();
    const response = await Auth(sessionRequest(`${COOKIE}=${token}`), config);
    expect(await response.json()).toBeNull();
    expect(setCookies(response).get(COOKIE)?.raw).toMatch(/Max-Age=0/);
    const logger = config.logger as { error: ReturnType<typeof vi.fn> };
    expect(logger.error).toHaveBeenCalledTimes(1);
    expect(logger.error.mock.calls[0]![0].type).toBe("JWTSessionError");
  });

  test("jwt.maxAge sets the token lifetime and session.maxAge the cookie's", async () => {
    const config = credentialsConfig({ session: { maxAge: 3600 }, jwt: { maxAge: 600 } });
    const jar = new Jar();
    const response = await signInAlice(config, jar);
    const cookie = setCookies(response).get(COOKIE)!;
    const token = (await decode({ token: cookie.value, secret: SECRET, salt: COOKIE })) as JWT;
    expect(token.exp! - token.iat!).toBe(600);
    const expires = Date.parse(cookie.raw.match(/Expires=([^;]+)/)![1]!);
    expect(Math.abs(expires - (Date.now() + 3600_000))).toBeLessThan(5000);
  });

  test("a session minted under an old secret survives rotation and is re-issued under the new one", async () => {
    vi.useFakeTimers({ now: Date.now() - 2 * 86400_000, toFake: ["Date"] });
    const token = await cookieFor({ sub: "1", name: "A" }, "old-secret");
    vi.useRealTimers();
    const config = credentialsConfig({ secret: ["new-secret", "old-secret"] });
    const response = await Auth(sessionRequest(`${COOKIE}=${token}`), config);
    expect((await response.json()).user.name).toBe("A");
    const reissued = setCookies(response).get(COOKIE)!.value;
    expect(await decode({ token: reissued, secret: "new-secret", salt: COOKIE })).toMatchObject({
      sub: "1",
    });
  });

  test("custom jwt encode and decode are used", async () => {
    const config = credentialsConfig({
      session: { updateAge: 0 },
      jwt: {
        encode: ({ token }) => `plain.${btoa(JSON.stringify(token))}`,
        decode: ({ token }) => (token ? JSON.parse(atob(token.slice(6))) : null),
      },
    });
    const response = await Auth(
      sessionRequest(`${COOKIE}=plain.${btoa(JSON.stringify({ name: "Custom" }))}`),
      config,
    );
    expect((await response.json()).user.name).toBe("Custom");
    expect(setCookies(response).get(COOKIE)!.value.startsWith("plain.")).toBe(true);
  });
});

describe("session cookie chunking", () => {
  const big = (size: number): AuthConfig =>
    credentialsConfig({
      callbacks: { jwt: ({ token }) => ({ ...token, blob: "x".repeat(size) }) },
    });

  test("a token past 3936 characters is split into ordered chunks that read back", async () => {
    const config = big(9000);
    const jar = new Jar();
    await signInAlice(config, jar);
    const names = [...jar.cookies.keys()].filter((n) => n.startsWith(COOKIE)).sort();
    expect(names).toEqual([`${COOKIE}.0`, `${COOKIE}.1`, `${COOKIE}.2`, `${COOKIE}.3`]);
    for (const name of names) expect(jar.cookies.get(name)!.length).toBeLessThanOrEqual(3936);
    const body = await (await send(config, jar, "/auth/session")).json();
    expect(body.user.name).toBe("Alice");
  });

  test("shrinking back under the limit deletes every stale chunk", async () => {
    const jar = new Jar();
    await signInAlice(big(9000), jar);
    await signInAlice(credentialsConfig(), jar);
    expect([...jar.cookies.keys()].filter((n) => n.startsWith(COOKIE))).toEqual([COOKIE]);
  });
});

describe("POST /session (update)", () => {
  test("needs the CSRF token: without it the answer is 400 null", async () => {
    const config = credentialsConfig();
    const jar = new Jar();
    await signInAlice(config, jar);
    const response = await send(config, jar, "/auth/session", { json: { data: { name: "Bob" } } });
    expect(response.status).toBe(400);
    expect(await response.json()).toBeNull();
  });

  test("hands data to the jwt callback with trigger update and re-issues the cookie", async () => {
    const jwt = vi.fn(
      ({ token, trigger, session }: { token: JWT; trigger?: string; session?: unknown }) =>
        trigger === "update" ? { ...token, name: (session as { name: string }).name } : token,
    );
    const config = credentialsConfig({ callbacks: { jwt } });
    const jar = new Jar();
    await signInAlice(config, jar);
    const csrf = await csrfToken(config, jar);
    const response = await send(config, jar, "/auth/session", {
      json: { csrfToken: csrf, data: { name: "Bob" } },
    });
    expect(response.status).toBe(200);
    expect((await response.json()).user.name).toBe("Bob");
    expect(jwt).toHaveBeenLastCalledWith(
      expect.objectContaining({ trigger: "update", session: { name: "Bob" } }),
    );
    expect(response.headers.get("cache-control")).toBeNull();
    const after = await (await send(config, jar, "/auth/session")).json();
    expect(after.user.name).toBe("Bob");
  });
});

describe("secure cookies", () => {
  test("on https the cookies carry __Secure- and __Host- names and the Secure flag", async () => {
    const config = credentialsConfig();
    const jar = new Jar();
    const origin = "https://app.example";
    const csrf = await csrfToken(config, jar, origin);
    expect([...jar.cookies.keys()]).toEqual(["__Host-authjs.csrf-token"]);
    const response = await send(config, jar, "/auth/callback/credentials", {
      origin,
      form: { csrfToken: csrf, username: "alice", password: "wonderland" },
    });
    const cookie = setCookies(response).get("__Secure-authjs.session-token");
    expect(cookie?.raw).toMatch(/; Path=\/; Expires=[^;]+; HttpOnly; Secure; SameSite=Lax$/);
    const token = await decode({
      token: cookie!.value,
      secret: SECRET,
      salt: "__Secure-authjs.session-token",
    });
    expect(token?.sub).toBe(alice.id);
  });

  test("useSecureCookies false keeps plain names on https; cookie overrides take effect", async () => {
    const config = credentialsConfig({
      useSecureCookies: false,
      cookies: {
        sessionToken: {
          name: "app.session",
          options: { sameSite: "strict", domain: "app.example" },
        },
      },
    });
    const jar = new Jar();
    const origin = "https://app.example";
    const csrf = await csrfToken(config, jar, origin);
    const response = await send(config, jar, "/auth/callback/credentials", {
      origin,
      form: { csrfToken: csrf, username: "alice", password: "wonderland" },
    });
    const cookie = setCookies(response).get("app.session");
    expect(cookie?.raw).toMatch(/Domain=app\.example/);
    expect(cookie?.raw).toMatch(/SameSite=Strict/);
    expect(cookie?.raw).not.toMatch(/Secure/);
    const body = await (await send(config, jar, "/auth/session", { origin })).json();
    expect(body.user.email).toBe(alice.email);
  });
});
