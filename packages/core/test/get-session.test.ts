import { Auth, getSession } from "@gatehousejs/core";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { encode } from "@gatehousejs/core/jwt";
import type { AuthConfig, JWT } from "@gatehousejs/core/types";
import { afterEach, describe, expect, test, vi } from "vitest";
import { alice, credentialsConfig, ORIGIN, recordingLogger, SECRET } from "./helpers.js";

const COOKIE = "authjs.session-token";
const DAY = 86400_000;

function pageRequest(cookie?: string, url = `${ORIGIN}/account`, headers: HeadersInit = {}) {
  const h = new Headers(headers);
  if (cookie) h.set("cookie", cookie);
  return new Request(url, { headers: h });
}

/** The same cookies, asked of the endpoint: what getSession must match. */
async function fromEndpoint(config: AuthConfig, cookie?: string) {
  const h = new Headers();
  if (cookie) h.set("cookie", cookie);
  const response = await Auth(new Request(`${ORIGIN}/auth/session`, { headers: h }), config);
  return { body: await response.json(), setCookies: response.headers.getSetCookie() };
}

async function jwtCookie(token: JWT, secret: string | string[] = SECRET) {
  return `${COOKIE}=${await encode({ token, secret, salt: COOKIE })}`;
}

afterEach(() => {
  vi.useRealTimers();
});

describe("getSession with JWT sessions", () => {
  test("no cookie: null, no cookies reported", async () => {
    const onCookies = vi.fn();
    expect(await getSession(pageRequest(), credentialsConfig(), { onCookies })).toBeNull();
    expect(onCookies).not.toHaveBeenCalled();
  });

  test("a valid cookie gives what GET /session gives", async () => {
    const config = credentialsConfig();
    const cookie = await jwtCookie({ sub: "u1", name: "Alice", email: "a@x.io", role: "admin" });
    const session = await getSession(pageRequest(cookie), config);
    expect(session?.user).toEqual({ name: "Alice", email: "a@x.io" });
    expect(JSON.parse(JSON.stringify(session))).toEqual((await fromEndpoint(config, cookie)).body);
  });

  test("the jwt and session callbacks run, and the session event fires once", async () => {
    const sessionEvent = vi.fn();
    const config = credentialsConfig({
      callbacks: {
        jwt: ({ token }) => ({ ...token, role: "admin" }),
        session: ({ session, token }) => ({ ...session, role: token?.role, id: token?.sub }),
      },
      events: { session: sessionEvent },
    });
    const cookie = await jwtCookie({ sub: "u1", name: "Alice" });
    const session = await getSession(pageRequest(cookie), config);
    expect(session).toMatchObject({ role: "admin", id: "u1" });
    expect(sessionEvent).toHaveBeenCalledTimes(1);
  });

  test("a token past updateAge is re-issued and onCookies receives the Set-Cookie values", async () => {
    vi.useFakeTimers({ now: Date.now() - 2 * DAY, toFake: ["Date"] });
    const cookie = await jwtCookie({ sub: "u1", name: "Alice" });
    vi.useRealTimers();
    const received: string[] = [];
    const session = await getSession(pageRequest(cookie), credentialsConfig(), {
      onCookies: (values) => received.push(...values),
    });
    expect(session?.user?.name).toBe("Alice");
    expect(received).toHaveLength(1);
    expect(received[0]).toMatch(new RegExp(`^${COOKIE}=[^;]+; .*HttpOnly`));
    expect(received[0]).toMatch(/Expires=/);
    expect(received[0]).toMatch(/SameSite=Lax/);
  });

  test("an undecryptable cookie: null, and its deletion is reported, as by the endpoint", async () => {
    const config = credentialsConfig();
    const cookie = await jwtCookie({ sub: "u1" }, "another-secret-another-secret-0000");
    const received: string[] = [];
    const session = await getSession(pageRequest(cookie), config, {
      onCookies: (values) => received.push(...values),
    });
    expect(session).toBeNull();
    expect(received).toEqual((await fromEndpoint(config, cookie)).setCookies);
    expect(received[0]).toMatch(new RegExp(`^${COOKIE}=; `));
  });

  test("secret rotation: a cookie of an older secret still reads", async () => {
    const cookie = await jwtCookie(
      { sub: "u1", name: "Old" },
      "older-secret-older-secret-older-00",
    );
    const config = credentialsConfig({ secret: [SECRET, "older-secret-older-secret-older-00"] });
    expect((await getSession(pageRequest(cookie), config))?.user?.name).toBe("Old");
  });

  test("an HTTPS site reads the __Secure- cookie", async () => {
    const name = `__Secure-${COOKIE}`;
    const value = await encode({ token: { sub: "u1", name: "S" }, secret: SECRET, salt: name });
    const request = pageRequest(`${name}=${value}`, "https://app.example/account");
    expect((await getSession(request, credentialsConfig()))?.user?.name).toBe("S");
  });
});

describe("getSession with database sessions", () => {
  async function setup() {
    const adapter = MemoryAdapter();
    const user = await adapter.createUser!({ ...alice, emailVerified: null });
    const config = credentialsConfig({ adapter, session: { strategy: "database" } });
    return { adapter, user, config };
  }

  test("a stored session gives what GET /session gives, user id included by the callback", async () => {
    const { adapter, user, config } = await setup();
    config.callbacks = { session: ({ session, user: u }) => ({ ...session, userId: u?.id }) };
    await adapter.createSession!({
      sessionToken: "tok-1",
      userId: user.id,
      expires: new Date(Date.now() + 30 * DAY),
    });
    const session = await getSession(pageRequest(`${COOKIE}=tok-1`), config);
    expect(session).toMatchObject({ user: { name: "Alice", email: alice.email }, userId: user.id });
    expect(JSON.parse(JSON.stringify(session))).toEqual(
      (await fromEndpoint(config, `${COOKIE}=tok-1`)).body,
    );
  });

  test("an old session is extended in the store and its cookie re-issued through onCookies", async () => {
    const { adapter, user, config } = await setup();
    await adapter.createSession!({
      sessionToken: "tok-2",
      userId: user.id,
      expires: new Date(Date.now() + 10 * DAY),
    });
    const received: string[] = [];
    await getSession(pageRequest(`${COOKIE}=tok-2`), config, {
      onCookies: (values) => received.push(...values),
    });
    const stored = await adapter.getSessionAndUser!("tok-2");
    expect(stored!.session.expires.getTime()).toBeGreaterThan(Date.now() + 29 * DAY);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatch(new RegExp(`^${COOKIE}=tok-2; `));
  });

  test("an unknown session token: null and the cookie deleted", async () => {
    const { config } = await setup();
    const received: string[] = [];
    const session = await getSession(pageRequest(`${COOKIE}=nope`), config, {
      onCookies: (values) => received.push(...values),
    });
    expect(session).toBeNull();
    expect(received).toEqual((await fromEndpoint(config, `${COOKIE}=nope`)).setCookies);
  });

  test("a store that cannot be read: null like the endpoint, one error line, the cookie kept", async () => {
    const { adapter, config } = await setup();
    const logger = recordingLogger();
    config.logger = logger;
    adapter.getSessionAndUser = () => Promise.reject(new Error("connection refused"));
    const onCookies = vi.fn();
    expect(await getSession(pageRequest(`${COOKIE}=tok`), config, { onCookies })).toBeNull();
    expect(logger.error).toHaveBeenCalledTimes(1);
    expect(onCookies).not.toHaveBeenCalled();
  });

  test("a session callback that throws: null, as the endpoint answers", async () => {
    const { adapter, user, config } = await setup();
    config.callbacks = {
      session: () => {
        throw new Error("boom");
      },
    };
    await adapter.createSession!({
      sessionToken: "tok-3",
      userId: user.id,
      expires: new Date(Date.now() + 30 * DAY),
    });
    expect(await getSession(pageRequest(`${COOKIE}=tok-3`), config)).toBeNull();
    expect((await fromEndpoint(config, `${COOKIE}=tok-3`)).body).toBeNull();
  });
});

describe("getSession and the host rules", () => {
  test("without trustHost or url the configuration error is thrown, not swallowed", async () => {
    const logger = recordingLogger();
    const config: AuthConfig = { secret: SECRET, logger, providers: [] };
    const saved = process.env.AUTH_TRUST_HOST;
    delete process.env.AUTH_TRUST_HOST;
    try {
      await expect(getSession(pageRequest(), config)).rejects.toMatchObject({
        type: "UntrustedHost",
      });
    } finally {
      if (saved !== undefined) process.env.AUTH_TRUST_HOST = saved;
    }
    expect(logger.error).toHaveBeenCalledTimes(1);
  });

  test("with a pinned url, a request for another host has no session and logs one warning", async () => {
    const logger = recordingLogger();
    const config = credentialsConfig({ url: "https://app.example", trustHost: false, logger });
    const cookie = await jwtCookie({ sub: "u1", name: "A" });
    const request = pageRequest(cookie, "http://evil.example/account");
    expect(await getSession(request, config)).toBeNull();
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.warn.mock.calls[0]![1]).toMatchObject({ name: "UntrustedHost" });
  });

  test("with a pinned https url behind a plain-HTTP proxy, the secure cookie is the one read", async () => {
    const name = `__Secure-${COOKIE}`;
    const value = await encode({ token: { sub: "u1", name: "P" }, secret: SECRET, salt: name });
    const config = credentialsConfig({ url: "https://app.example", trustHost: true });
    const request = pageRequest(`${name}=${value}`, "http://10.0.0.5:3000/account", {
      "x-forwarded-host": "app.example",
    });
    expect((await getSession(request, config))?.user?.name).toBe("P");
  });

  test("the request is not consumed: its body can still be read after", async () => {
    const request = new Request(`${ORIGIN}/form`, { method: "POST", body: "a=1" });
    await getSession(request, credentialsConfig());
    expect(await request.text()).toBe("a=1");
  });
});

describe("a user without an address", () => {
  test("JWT: a token whose email is empty shows email null", async () => {
    const cookie = await jwtCookie({ sub: "u1", name: "Passkey user", email: "" });
    const session = await getSession(pageRequest(cookie), credentialsConfig());
    expect(session?.user).toEqual({ name: "Passkey user", email: null });
  });

  test("database: a stored user with no address (email '') shows email null", async () => {
    const adapter = MemoryAdapter();
    const user = await adapter.createUser!({ id: "p1", email: "", emailVerified: null });
    await adapter.createSession!({
      sessionToken: "tok-p",
      userId: user.id,
      expires: new Date(Date.now() + 30 * DAY),
    });
    const config = credentialsConfig({ adapter, session: { strategy: "database" } });
    const session = await getSession(pageRequest(`${COOKIE}=tok-p`), config);
    expect(session?.user?.email).toBeNull();
    expect((await fromEndpoint(config, `${COOKIE}=tok-p`)).body.user.email).toBeNull();
  });
});
