/**
 * The `session` callback under both strategies: what it receives (never the session token), what
 * the client gets back, and what a callback that throws does to `GET /session`.
 */
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { encode } from "@gatehousejs/core/jwt";
import type { AuthConfig, CallbacksOptions, JWT } from "@gatehousejs/core/types";
import { describe, expect, test, vi } from "vitest";
import {
  alice,
  credentialsConfig,
  csrfToken,
  Jar,
  type recordingLogger,
  SECRET,
  send,
  setCookies,
} from "./helpers.js";

const COOKIE = "authjs.session-token";
const TOKEN = "db-session-token-0123456789abcdef";

type SessionCallback = NonNullable<CallbacksOptions["session"]>;

/** A database-session config with alice stored and signed in under {@link TOKEN}. */
async function databaseSetup(overrides: Partial<AuthConfig> = {}) {
  const adapter = MemoryAdapter();
  const stored = await adapter.createUser!({ ...alice, emailVerified: new Date(0) });
  const expires = new Date(Date.now() + 30 * 86400_000);
  await adapter.createSession!({ sessionToken: TOKEN, userId: alice.id, expires });
  const config = credentialsConfig({ adapter, ...overrides });
  const jar = new Jar();
  jar.cookies.set(COOKIE, TOKEN);
  return { config, jar, stored, expires };
}

/** A JWT-session jar holding a fresh token for alice. */
async function jwtJar() {
  const jar = new Jar();
  const token: JWT = { sub: alice.id, name: alice.name, email: alice.email };
  jar.cookies.set(COOKIE, await encode({ token, secret: SECRET, salt: COOKIE }));
  return jar;
}

function logged(config: AuthConfig) {
  return config.logger as ReturnType<typeof recordingLogger>;
}

describe("the session callback under the database strategy", () => {
  test("the common `{ ...session, user: { ...session.user, id } }` callback publishes no session token", async () => {
    const sessionEvent = vi.fn();
    const { config, jar, expires } = await databaseSetup({
      callbacks: {
        session: ({ strategy, session, user }) =>
          strategy === "database"
            ? { ...session, user: { ...session.user, id: user.id } }
            : session,
      },
      events: { session: sessionEvent },
    });
    const response = await send(config, jar, "/auth/session");
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain(TOKEN);
    const body = JSON.parse(text);
    expect(body).not.toHaveProperty("sessionToken");
    expect(body.user.id).toBe(alice.id);
    // A Date in the callback's answer still reaches the client as the ISO string.
    expect(body.expires).toBe(expires.toISOString());
    expect(JSON.stringify(sessionEvent.mock.calls)).not.toContain(TOKEN);
    expect(sessionEvent).toHaveBeenCalledWith({
      session: expect.objectContaining({ expires: expires.toISOString() }),
    });
  });

  test("it receives what Auth.js passes: expires as a Date, the stored user, no token", async () => {
    const seen: Parameters<SessionCallback>[0][] = [];
    const { config, jar, stored, expires } = await databaseSetup({
      callbacks: {
        session: (params) => {
          seen.push(params);
          return { expires: params.session.expires };
        },
      },
    });
    const body = await (await send(config, jar, "/auth/session")).json();
    expect(body).toEqual({ expires: expires.toISOString() });
    const params = seen[0]!;
    expect(params.strategy).toBe("database");
    expect(params.token).toBeUndefined();
    expect(params.user).toEqual(stored);
    expect(params.session.user).toEqual(stored);
    expect(params.session.expires).toBeInstanceOf(Date);
    expect(params.session.expires).toEqual(expires);
    expect(params.session.userId).toBe(alice.id);
    expect(params.session).not.toHaveProperty("sessionToken");
    expect(JSON.stringify(params)).not.toContain(TOKEN);
  });

  test("on an update it also gets newSession and trigger, and still no token", async () => {
    const session = vi.fn<SessionCallback>(({ session }) => session);
    const { config, jar } = await databaseSetup({ callbacks: { session } });
    const csrf = await csrfToken(config, jar);
    const response = await send(config, jar, "/auth/session", {
      json: { csrfToken: csrf, data: { theme: "dark" } },
    });
    expect(response.status).toBe(200);
    expect(await response.text()).not.toContain(TOKEN);
    expect(session).toHaveBeenLastCalledWith(
      expect.objectContaining({ trigger: "update", newSession: { theme: "dark" } }),
    );
    expect(session.mock.lastCall![0].session).not.toHaveProperty("sessionToken");
  });

  test("the default callback answers name, email, image and an ISO expiry", async () => {
    const { config, jar, expires } = await databaseSetup();
    const body = await (await send(config, jar, "/auth/session")).json();
    expect(body).toEqual({
      user: { name: alice.name, email: alice.email, image: alice.image },
      expires: expires.toISOString(),
    });
  });

  test("a callback that throws: 200 null, one SessionTokenError, no error page, cookie kept", async () => {
    const { config, jar } = await databaseSetup({
      callbacks: {
        session: () => {
          throw new Error("callback bug");
        },
      },
    });
    const response = await send(config, jar, "/auth/session");
    expect(response.status).toBe(200);
    expect(response.headers.get("location")).toBeNull();
    expect(await response.json()).toBeNull();
    expect(response.headers.getSetCookie()).toEqual([]);
    expect(logged(config).error).toHaveBeenCalledTimes(1);
    expect(logged(config).error.mock.calls[0]![0]).toMatchObject({
      type: "SessionTokenError",
      message: "The session callback threw",
    });
  });
});

describe("the session callback under the JWT strategy", () => {
  test("it receives strategy jwt and the token, and no user", async () => {
    const seen: Parameters<SessionCallback>[0][] = [];
    const config = credentialsConfig({
      callbacks: {
        session: (params) => {
          seen.push(params);
          return params.session;
        },
      },
    });
    const body = await (await send(config, await jwtJar(), "/auth/session")).json();
    expect(body.user).toEqual({ name: alice.name, email: alice.email });
    expect(seen[0]).toMatchObject({ strategy: "jwt", token: { sub: alice.id } });
    expect(seen[0]!.user).toBeUndefined();
  });

  test("a session callback that throws: 200 null, one JWTSessionError, no error page, cookie kept", async () => {
    const sessionEvent = vi.fn();
    const config = credentialsConfig({
      callbacks: {
        // The Auth.js snippet that crashes under JWT: there is no `user` here.
        session: ({ session, user }) => ({ ...session, id: (user as { id: string }).id }),
      },
      events: { session: sessionEvent },
    });
    const response = await send(config, await jwtJar(), "/auth/session");
    expect(response.status).toBe(200);
    expect(response.headers.get("location")).toBeNull();
    expect(await response.json()).toBeNull();
    expect(setCookies(response).get(COOKIE)?.raw ?? "").not.toMatch(/Max-Age=0/);
    expect(logged(config).error).toHaveBeenCalledTimes(1);
    expect(logged(config).error.mock.calls[0]![0]).toMatchObject({
      type: "JWTSessionError",
      message: "The session callback threw",
    });
    expect(sessionEvent).not.toHaveBeenCalled();
  });

  test("a jwt callback that throws during a check: 200 null, one JWTSessionError, cookie kept", async () => {
    const config = credentialsConfig({
      callbacks: {
        jwt: ({ trigger, token }) => {
          if (trigger === undefined) throw new Error("refresh failed");
          return token;
        },
      },
    });
    const response = await send(config, await jwtJar(), "/auth/session");
    expect(response.status).toBe(200);
    expect(await response.json()).toBeNull();
    expect(response.headers.getSetCookie()).toEqual([]);
    expect(logged(config).error).toHaveBeenCalledTimes(1);
    expect(logged(config).error.mock.calls[0]![0]).toMatchObject({ type: "JWTSessionError" });
  });
});
