import { getSession, listSessions, revokeSession, revokeUserSessions } from "@gatehousejs/core";
import { decode, encode } from "@gatehousejs/core/jwt";
import { MemoryRevocationStore } from "@gatehousejs/core/revocation/memory";
import type { AuthConfig, JWT, RevocationStore } from "@gatehousejs/core/types";
import { afterEach, describe, expect, test, vi } from "vitest";
import { SECRET } from "./helpers.js";
import { agents, Browser, COOKIE, listed, sessionsConfig, users } from "./sessions-helpers.js";

afterEach(() => {
  vi.useRealTimers();
});

/** A store that counts its calls. */
function counted(store: RevocationStore = MemoryRevocationStore()) {
  const calls: string[] = [];
  const proxy = new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls.push(String(key));
        return value.apply(target, args);
      };
    },
  });
  return { store: proxy, calls };
}

function setup(overrides: Partial<AuthConfig> = {}, maxStaleness?: number) {
  const memory = MemoryRevocationStore();
  const { store, calls } = counted(memory);
  const signOut = vi.fn();
  const config = sessionsConfig({
    session: {
      strategy: "jwt",
      revocation: { store, ...(maxStaleness === undefined ? {} : { maxStaleness }) },
    },
    events: { signOut },
    ...overrides,
  });
  const browser = (agent = agents.chromeMac, ip?: string) => new Browser(config, agent, ip);
  return { memory, store, calls, config, browser, signOut };
}

async function tokenOf(browser: Browser): Promise<JWT> {
  const value = browser.cookies.get(COOKIE) ?? "";
  return (await decode({ token: value, secret: SECRET, salt: COOKIE })) as JWT;
}

describe("JWT session ids", () => {
  test("a sign-in gives the token a random sid and auth_time, kept across re-issues", async () => {
    const { browser } = setup({ session: { strategy: "jwt", updateAge: 0 } });
    // The clock stands still during the sign-in, so that no second boundary falls between the
    // sign-in time and the token's issue time.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    const alice = await browser().signIn("alice");
    const first = await tokenOf(alice);
    expect(first.sid).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(first.auth_time).toBe(first.iat);
    const other = await tokenOf(await browser().signIn("alice"));
    expect(other.sid).not.toBe(first.sid);

    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 5000 });
    await alice.session();
    const reissued = await tokenOf(alice);
    expect(reissued.iat).toBeGreaterThan(first.iat ?? 0);
    expect(reissued.sid).toBe(first.sid);
    expect(reissued.auth_time).toBe(first.auth_time);
  });

  test("a jwt callback that builds a new token still keeps sid and auth_time", async () => {
    const { browser } = setup({
      session: { strategy: "jwt", updateAge: 0 },
      callbacks: { jwt: ({ token }) => ({ sub: token.sub, email: token.email }) },
    });
    const alice = await browser().signIn("alice");
    const first = await tokenOf(alice);
    expect(first.sid).toEqual(expect.any(String));
    await alice.session();
    expect((await tokenOf(alice)).sid).toBe(first.sid);
  });
});

describe("instant revocation of JWT sessions", () => {
  test("a session check asks the store exactly once", async () => {
    const { browser, calls } = setup();
    const alice = await browser().signIn("alice");
    calls.length = 0;
    await alice.session();
    expect(calls).toEqual(["check"]);
  });

  test("a revoked JWT replayed: null, cookie cleared, signOut fired with the token", async () => {
    const { browser, signOut } = setup();
    const laptop = await browser().signIn("alice");
    const phone = await browser(agents.safariIphone).signIn("alice");
    const phoneToken = await tokenOf(phone);
    const stolen = phone.cookies.get(COOKIE) ?? "";
    const phoneId = (await listed(phone)).current?.id;
    expect(phoneId).toBe(phoneToken.sid);

    expect((await laptop.revoke({ id: phoneId })).body).toEqual({ revoked: 1 });
    const response = await phone.request("/auth/session");
    expect(await response.json()).toBeNull();
    expect(response.headers.getSetCookie().some((c) => c.startsWith(`${COOKIE}=;`))).toBe(true);
    expect(signOut).toHaveBeenCalledWith({ token: expect.objectContaining({ sid: phoneId }) });

    // The same cookie kept elsewhere stays refused.
    const replay = new Browser(phone.config, agents.firefoxLinux);
    replay.cookies.set(COOKIE, stolen);
    expect(await replay.session()).toBeNull();
    expect(await laptop.session()).toMatchObject({ user: { email: users.alice.email } });
  });

  test("a sign-in in the same second as 'sign out everywhere' keeps its session; the old ones stay ended", async () => {
    const { browser, config } = setup();
    // Mid-second, and the clock stands still: revocation and sign-in fall in one second.
    vi.useFakeTimers({ toFake: ["Date"], now: Math.floor(Date.now() / 1000) * 1000 + 400 });
    const before = await browser().signIn("alice");
    await revokeUserSessions(config, users.alice.id);
    expect(await before.session()).toBeNull();
    const after = await browser().signIn("alice");
    expect(await after.session()).toMatchObject({ user: { email: users.alice.email } });
    // Its sign-in time reads as after the revocation's second, which the old session's does not.
    const token = await tokenOf(after);
    expect(token.auth_time).toBe(Math.floor(Date.now() / 1000) + 1);
    expect(await before.session()).toBeNull();
    // Far from any revocation, the sign-in time is the time of the sign-in.
    vi.setSystemTime(Date.now() + 5_000);
    const later = await tokenOf(await browser().signIn("alice"));
    expect(later.auth_time).toBe(Math.floor(Date.now() / 1000));
  });

  test("getSession on the server sees the revocation too, and deletes the cookie", async () => {
    const { browser, config } = setup();
    const alice = await browser().signIn("alice");
    const request = () =>
      new Request("http://localhost:3000/account", { headers: { cookie: alice.header() } });
    expect(await getSession(request(), config)).not.toBeNull();
    await revokeUserSessions(config, users.alice.id);
    const onCookies = vi.fn();
    expect(await getSession(request(), config, { onCookies })).toBeNull();
    expect(onCookies.mock.calls[0]?.[0]?.[0]).toMatch(new RegExp(`^${COOKIE}=;`));
  });

  test("signing out revokes the token's session: a copy of the cookie no longer works", async () => {
    const { browser } = setup();
    const alice = await browser().signIn("alice");
    const copy = alice.cookies.get(COOKIE) ?? "";
    const { csrfToken } = await (await alice.request("/auth/csrf")).json();
    await alice.request("/auth/signout", { form: { csrfToken } });
    expect(alice.cookies.has(COOKIE)).toBe(false);
    const replay = new Browser(alice.config, agents.chromeMac);
    replay.cookies.set(COOKIE, copy);
    expect(await replay.session()).toBeNull();
  });

  test("maxStaleness: answers are reused that long; revocations made here apply at once", async () => {
    const { browser, calls, memory, config } = setup({}, 60_000);
    const alice = await browser().signIn("alice");
    const token = await tokenOf(alice);
    calls.length = 0;
    await alice.session();
    await alice.session();
    expect(calls).toEqual(["check"]);

    // Another process revokes: this one sees it only once its cached answer is stale.
    await memory.revokeSession({
      userId: users.alice.id,
      sessionId: String(token.sid),
      expires: new Date(Date.now() + 86400_000),
    });
    expect(await alice.session()).not.toBeNull();
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 60_001 });
    expect(await alice.session()).toBeNull();
    vi.useRealTimers();

    // A revocation through this process forgets the cache at once.
    const bob = await browser().signIn("bob");
    await bob.session();
    const bobId = String((await tokenOf(bob)).sid);
    expect(await revokeSession(config, users.bob.id, bobId)).toBe(true);
    expect(await bob.session()).toBeNull();
  });

  test("default maxStaleness 0: every check asks the store", async () => {
    const { browser, calls } = setup();
    const alice = await browser().signIn("alice");
    calls.length = 0;
    await alice.session();
    await alice.session();
    expect(calls).toEqual(["check", "check"]);
  });

  test("a store that fails: no session, the cookie kept, one error line that names the store", async () => {
    const down = new Error("store down");
    const failing: RevocationStore = {
      ...MemoryRevocationStore(),
      check: () => Promise.reject(down),
    };
    const config = sessionsConfig({ session: { strategy: "jwt", revocation: { store: failing } } });
    const alice = await new Browser(config, agents.chromeMac).signIn("alice");
    const response = await alice.request("/auth/session");
    expect(await response.json()).toBeNull();
    expect(response.headers.getSetCookie()).toEqual([]);
    const error = config.logger?.error as ReturnType<typeof vi.fn>;
    expect(error).toHaveBeenCalledTimes(1);
    const [logged] = error.mock.calls[0] as [Error & { type?: string }];
    expect(logged).toMatchObject({
      type: "JWTSessionError",
      message: "The revocation store could not be checked",
    });
    expect(logged.cause).toBe(down);
  });

  test("a token without sid (issued before, or by Auth.js) lists as legacy and ends with revoke-all", async () => {
    const { config } = setup();
    const legacy = new Browser(config, agents.chromeMac);
    legacy.cookies.set(
      COOKIE,
      await encode({
        token: { sub: users.alice.id, email: users.alice.email },
        secret: SECRET,
        salt: COOKIE,
      }),
    );
    expect(await legacy.session()).not.toBeNull();
    expect((await listed(legacy)).current).toMatchObject({ id: "legacy", strategy: "jwt" });
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 1000 });
    await revokeUserSessions(config, users.alice.id);
    expect(await legacy.session()).toBeNull();
  });
});

describe("recorded JWT sessions", () => {
  test("a re-issue records lastSeenAt and keeps what the sign-in recorded", async () => {
    const memory = MemoryRevocationStore();
    const config = sessionsConfig({
      session: { strategy: "jwt", updateAge: 0, revocation: { store: memory } },
    });
    const alice = await new Browser(config, agents.chromeMac).signIn("alice");
    const [signedIn] = await memory.listSessions(users.alice.id);
    expect(signedIn).toMatchObject({ provider: "credentials", client: "Chrome 131 on macOS" });
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 5000 });
    await alice.session();
    const [seen] = await memory.listSessions(users.alice.id);
    expect(seen?.lastSeenAt?.valueOf()).toBe(Date.now());
    expect(seen).toMatchObject({ provider: "credentials", providerType: "credentials" });
    expect(seen?.createdAt).toEqual(signedIn?.createdAt);
    expect(seen?.expires.valueOf()).toBeGreaterThan(signedIn?.expires.valueOf() ?? 0);
  });
});

describe("GET /sessions and POST /sessions/revoke (JWT)", () => {
  test("lists the sessions the store recorded, with their metadata, the current one marked", async () => {
    const { browser } = setup({
      session: { strategy: "jwt", revocation: { store: MemoryRevocationStore() }, recordIp: true },
      trustedProxies: 1,
    });
    const laptop = await browser(agents.chromeMac, "2001:db8:85a3:8d3::1").signIn("alice");
    await browser(agents.safariIphone).signIn("alice");
    await browser().signIn("bob");
    const { sessions, current } = await listed(laptop);
    expect(sessions).toHaveLength(2);
    expect(current).toMatchObject({
      id: (await tokenOf(laptop)).sid,
      strategy: "jwt",
      client: "Chrome 131 on macOS",
      ip: "2001:db8:85a3::",
      provider: "credentials",
      providerType: "credentials",
    });
    expect(sessions.find((s) => !s.current)).toMatchObject({ client: "Safari 18 on iOS" });
  });

  test("others and all", async () => {
    const { browser } = setup();
    const laptop = await browser().signIn("alice");
    const phone = await browser(agents.safariIphone).signIn("alice");
    const desktop = await browser(agents.firefoxLinux).signIn("alice");
    const bob = await browser().signIn("bob");
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 1000 });
    expect((await laptop.revoke({ others: true })).body).toEqual({ revoked: 2 });
    expect(await phone.session()).toBeNull();
    expect(await desktop.session()).toBeNull();
    expect(await laptop.session()).not.toBeNull();
    expect((await listed(laptop)).ids).toHaveLength(1);

    // Revocations have one-second precision: a sign-in in the same second would end too.
    vi.setSystemTime(Date.now() + 1000);
    const tablet = await browser(agents.safariIphone).signIn("alice");
    const { body, response } = await laptop.revoke({ all: true });
    expect(body).toEqual({ revoked: 2 });
    expect(response.headers.getSetCookie().some((c) => c.startsWith(`${COOKIE}=;`))).toBe(true);
    expect(await laptop.session()).toBeNull();
    expect(await tablet.session()).toBeNull();
    expect(await bob.session()).not.toBeNull();
  });

  test("another user's session id is refused like an unknown one", async () => {
    const { browser, config } = setup();
    const alice = await browser().signIn("alice");
    const bob = await browser().signIn("bob");
    const bobsId = String((await tokenOf(bob)).sid);
    expect((await alice.revoke({ id: bobsId })).body).toEqual({ revoked: 0 });
    expect(await revokeSession(config, users.alice.id, bobsId)).toBe(false);
    expect(await bob.session()).not.toBeNull();
    expect((await listed(alice)).ids).not.toContain(bobsId);
    expect((await listSessions(config, users.bob.id)).map((s) => s.id)).toEqual([bobsId]);
  });

  test("a revocation without the CSRF token is refused and ends nothing", async () => {
    const { browser } = setup();
    const alice = await browser().signIn("alice");
    const { status, body } = await alice.revoke({ all: true }, { csrf: false });
    expect(status).toBe(403);
    expect(body.error).toBe("MissingCSRF");
    expect(await alice.session()).not.toBeNull();
  });
});

describe("JWT sessions without a revocation store", () => {
  test("the check makes no store call; the listing is the current session; only it can end", async () => {
    const config = sessionsConfig({ session: { strategy: "jwt" } });
    const laptop = await new Browser(config, agents.chromeMac).signIn("alice");
    const phone = await new Browser(config, agents.safariIphone).signIn("alice");
    const { sessions, current } = await listed(laptop);
    expect(sessions).toHaveLength(1);
    expect(current).toMatchObject({ id: (await tokenOf(laptop)).sid, strategy: "jwt" });
    expect((await laptop.revoke({ others: true })).body).toEqual({ revoked: 0 });
    expect(await phone.session()).not.toBeNull();
    expect((await laptop.revoke({ all: true })).body).toEqual({ revoked: 1 });
    expect(await laptop.session()).toBeNull();
    expect(await listSessions(config, users.alice.id)).toEqual([]);
    await expect(revokeUserSessions(config, users.alice.id)).rejects.toThrow(/session.revocation/);
  });
});
