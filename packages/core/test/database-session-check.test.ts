import { Auth } from "@gatehousejs/core";
import type { Adapter } from "@gatehousejs/core/adapters";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import Credentials from "@gatehousejs/core/providers/credentials";
import type { AuthConfig } from "@gatehousejs/core/types";
import { describe, expect, test, vi } from "vitest";
import {
  alice,
  csrfToken,
  Jar,
  ORIGIN,
  recordingLogger,
  SECRET,
  send,
  setCookies,
  signInAlice,
} from "./helpers.js";

const COOKIE = "authjs.session-token";
const DAY = 86400_000;

/** Wraps an adapter so every call is counted by method name. */
function counting(adapter: Adapter) {
  const calls: string[] = [];
  const proxy = new Proxy(adapter, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls.push(String(key));
        return value.apply(target, args);
      };
    },
  });
  return { proxy, calls };
}

async function setup(overrides: Partial<AuthConfig> = {}) {
  const adapter = MemoryAdapter();
  await adapter.createUser!({ ...alice, emailVerified: null });
  const { proxy, calls } = counting(adapter);
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter: proxy,
    logger: recordingLogger(),
    providers: [
      Credentials({
        credentials: { username: {}, password: {} },
        authorize: ({ username, password }) =>
          username === "alice" && password === "wonderland" ? { ...alice } : null,
      }),
    ],
    ...overrides,
  };
  return { adapter, config, calls };
}

function sessionCookie(token: string) {
  const jar = new Jar();
  jar.cookies.set(COOKIE, token);
  return jar;
}

describe("database sessions", () => {
  test("an adapter makes database the default strategy; credentials sign-in creates a session row", async () => {
    const { adapter, config } = await setup();
    const jar = new Jar();
    const response = await signInAlice(config, jar);
    expect(response.headers.get("location")).toBe(ORIGIN);
    const token = jar.cookies.get(COOKIE)!;
    expect(token).toMatch(/^[0-9a-f-]{36}$/);
    const row = await adapter.rows.session(token);
    expect(row?.userId).toBe(alice.id);
    const cookie = setCookies(response).get(COOKIE)!.raw;
    expect(Date.parse(cookie.match(/Expires=([^;]+)/)![1]!)).toBe(
      Math.floor(row!.expires.valueOf() / 1000) * 1000,
    );
    expect(cookie).toMatch(/HttpOnly/);
  });

  test("a session check inside updateAge is exactly one adapter call and sets no cookie", async () => {
    const { config, calls } = await setup();
    const jar = new Jar();
    await signInAlice(config, jar);
    calls.length = 0;
    const response = await send(config, jar, "/auth/session");
    expect(calls).toEqual(["getSessionAndUser"]);
    expect(response.headers.getSetCookie()).toEqual([]);
    const body = await response.json();
    expect(body.user).toEqual({ name: alice.name, email: alice.email, image: alice.image });
  });

  test("past updateAge the expiry slides by maxAge, once, and the cookie matches the stored expiry", async () => {
    const { adapter, config, calls } = await setup();
    const token = "sliding-token";
    await adapter.createSession!({
      sessionToken: token,
      userId: alice.id,
      expires: new Date(Date.now() + 28 * DAY),
    });
    const response = await send(config, sessionCookie(token), "/auth/session");
    expect(calls).toEqual(["getSessionAndUser", "updateSession"]);
    const stored = (await adapter.rows.session(token))!.expires;
    expect(Math.abs(stored.valueOf() - (Date.now() + 30 * DAY))).toBeLessThan(5000);
    const body = await response.json();
    expect(body.expires).toBe(stored.toISOString());
    const cookie = setCookies(response).get(COOKIE)!.raw;
    expect(Date.parse(cookie.match(/Expires=([^;]+)/)![1]!)).toBe(
      Math.floor(stored.valueOf() / 1000) * 1000,
    );
  });

  test("updateAge 0 extends on every check", async () => {
    const { config, calls } = await setup({ session: { updateAge: 0 } });
    const jar = new Jar();
    await signInAlice(config, jar);
    calls.length = 0;
    await send(config, jar, "/auth/session");
    await send(config, jar, "/auth/session");
    expect(calls).toEqual([
      "getSessionAndUser",
      "updateSession",
      "getSessionAndUser",
      "updateSession",
    ]);
  });

  test("an expired session is deleted and its cookie cleared", async () => {
    const { adapter, config } = await setup();
    await adapter.createSession!({
      sessionToken: "old",
      userId: alice.id,
      expires: new Date(Date.now() - 1000),
    });
    const response = await send(config, sessionCookie("old"), "/auth/session");
    expect(await response.json()).toBeNull();
    expect(setCookies(response).get(COOKIE)?.raw).toMatch(/Max-Age=0/);
    expect(await adapter.rows.session("old")).toBeNull();
  });

  test("an unknown session token answers null and clears the cookie", async () => {
    const { config } = await setup();
    const response = await send(config, sessionCookie("never-issued"), "/auth/session");
    expect(await response.json()).toBeNull();
    expect(setCookies(response).get(COOKIE)?.raw).toMatch(/Max-Age=0/);
  });

  test("generateSessionToken makes the token", async () => {
    const { adapter, config } = await setup({
      session: { generateSessionToken: () => "custom-token-1" },
    });
    const jar = new Jar();
    await signInAlice(config, jar);
    expect(jar.cookies.get(COOKIE)).toBe("custom-token-1");
    expect(await adapter.rows.session("custom-token-1")).not.toBeNull();
  });

  test("sign-out deletes the session row and fires signOut with it", async () => {
    const signOut = vi.fn();
    const { adapter, config } = await setup({ events: { signOut } });
    const jar = new Jar();
    await signInAlice(config, jar);
    const token = jar.cookies.get(COOKIE)!;
    const csrf = await csrfToken(config, jar);
    const response = await send(config, jar, "/auth/signout", { form: { csrfToken: csrf } });
    expect(setCookies(response).get(COOKIE)?.raw).toMatch(/Max-Age=0/);
    expect(await adapter.rows.session(token)).toBeNull();
    expect(signOut).toHaveBeenCalledWith({
      session: expect.objectContaining({ sessionToken: token, userId: alice.id }),
    });
  });

  test("the session callback gets the stored user; an update passes newSession and trigger", async () => {
    const session = vi.fn(({ session, user, newSession }) => ({
      ...session,
      role: user.id,
      seen: newSession ?? null,
    }));
    const { config } = await setup({ callbacks: { session } });
    const jar = new Jar();
    await signInAlice(config, jar);
    const body = await (await send(config, jar, "/auth/session")).json();
    expect(body.role).toBe(alice.id);
    expect(session).toHaveBeenLastCalledWith(
      expect.objectContaining({ user: expect.objectContaining({ id: alice.id }) }),
    );
    const csrf = await csrfToken(config, jar);
    const updated = await (
      await send(config, jar, "/auth/session", {
        json: { csrfToken: csrf, data: { theme: "dark" } },
      })
    ).json();
    expect(updated.seen).toEqual({ theme: "dark" });
    expect(session).toHaveBeenLastCalledWith(
      expect.objectContaining({ trigger: "update", newSession: { theme: "dark" } }),
    );
  });

  test("credentials with database sessions need the user to exist in the adapter", async () => {
    const { config } = await setup({
      providers: [Credentials({ authorize: () => ({ id: "ghost", name: "Ghost" }) })],
    });
    const jar = new Jar();
    const csrf = await csrfToken(config, jar);
    const response = await send(config, jar, "/auth/callback/credentials", {
      form: { csrfToken: csrf },
    });
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`);
    const logger = config.logger as ReturnType<typeof recordingLogger>;
    expect(logger.error.mock.calls[0]![0].message).toMatch(/exists in the adapter/);
    expect(jar.cookies.has(COOKIE)).toBe(false);
  });

  test("an adapter that throws while reading: null, one SessionTokenError, cookie kept", async () => {
    const { adapter, config } = await setup();
    adapter.getSessionAndUser = async () => {
      throw new Error("connection reset");
    };
    const response = await send(config, sessionCookie("whatever"), "/auth/session");
    expect(response.status).toBe(200);
    expect(await response.json()).toBeNull();
    expect(response.headers.getSetCookie()).toEqual([]);
    const logger = config.logger as ReturnType<typeof recordingLogger>;
    expect(logger.error).toHaveBeenCalledTimes(1);
    expect(logger.error.mock.calls[0]![0]).toMatchObject({ type: "SessionTokenError" });
  });

  test("an adapter that throws during sign-in: error page, AdapterError logged, no cookie", async () => {
    const { adapter, config } = await setup();
    adapter.createSession = async () => {
      throw new Error("disk full");
    };
    const jar = new Jar();
    const response = await signInAlice(config, jar);
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`);
    const logger = config.logger as ReturnType<typeof recordingLogger>;
    expect(logger.error.mock.calls[0]![0]).toMatchObject({ type: "AdapterError" });
    expect(jar.cookies.has(COOKIE)).toBe(false);
  });

  test("credentials-only with database sessions is a supported configuration", async () => {
    const { config } = await setup({ session: { strategy: "database" } });
    const response = await Auth(new Request(`${ORIGIN}/auth/providers`), config);
    expect(response.status).toBe(200);
  });
});
