import {
  listSecurityEvents,
  listSessions,
  revokeSession,
  revokeUserSessions,
} from "@gatehousejs/core";
import type { Adapter } from "@gatehousejs/core/adapters";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { MemorySecurityEventStore } from "@gatehousejs/core/security-log/memory";
import type { AuthConfig } from "@gatehousejs/core/types";
import { describe, expect, test, vi } from "vitest";
import { agents, Browser, COOKIE, listed, sessionsConfig, users } from "./sessions-helpers.js";

async function setup(overrides: Partial<AuthConfig> = {}, adapter = MemoryAdapter()) {
  for (const user of Object.values(users))
    await adapter.createUser({ ...user, emailVerified: null });
  const signOut = vi.fn();
  const config = sessionsConfig({
    adapter,
    session: { strategy: "database" },
    events: { signOut },
    ...overrides,
  });
  const browser = (agent = agents.chromeMac, ip?: string) => new Browser(config, agent, ip);
  return { adapter, config, browser, signOut };
}

describe("database session records", () => {
  test("a sign-in records when, how and from which client; the address only with recordIp", async () => {
    const { adapter, browser } = await setup();
    const before = Date.now();
    await browser(agents.chromeMac).signIn("alice");
    const [row] = await adapter.listSessionsByUserId(users.alice.id);
    expect(row?.createdAt?.valueOf()).toBeGreaterThanOrEqual(before - 1000);
    expect(row?.lastSeenAt?.valueOf()).toBe(row?.createdAt?.valueOf());
    expect(row).toMatchObject({
      provider: "credentials",
      providerType: "credentials",
      client: "Chrome 131 on macOS",
      ip: null,
    });

    // One proxy in front: its X-Forwarded-For entry is the client's address.
    const withIp = await setup({
      session: { strategy: "database", recordIp: true },
      trustedProxies: 1,
    });
    await withIp.browser(agents.firefoxLinux, "198.51.100.23").signIn("bob");
    const [bobs] = await withIp.adapter.listSessionsByUserId(users.bob.id);
    expect(bobs).toMatchObject({ client: "Firefox 133 on Linux", ip: "198.51.100.0" });
  });

  test("X-Forwarded-For is not believed without trustedProxies, even with recordIp and trustHost", async () => {
    const { adapter, browser } = await setup({
      trustHost: true,
      session: { strategy: "database", recordIp: true },
    });
    await browser().signIn("alice");
    const [row] = await adapter.listSessionsByUserId(users.alice.id);
    expect(row?.ip).toBeNull();
  });

  test("lastSeenAt is written only with an expiry extension (no extra writes)", async () => {
    const { adapter, browser } = await setup();
    const alice = await browser().signIn("alice");
    const [created] = await adapter.listSessionsByUserId(users.alice.id);
    const updateSession = vi.spyOn(adapter, "updateSession");
    await alice.session();
    expect(updateSession).not.toHaveBeenCalled();

    const eager = await setup({ session: { strategy: "database", updateAge: 0 } });
    const bob = await eager.browser().signIn("bob");
    const [first] = await eager.adapter.listSessionsByUserId(users.bob.id);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await bob.session();
    const [after] = await eager.adapter.listSessionsByUserId(users.bob.id);
    expect(after?.lastSeenAt?.valueOf()).toBeGreaterThan(first?.lastSeenAt?.valueOf() ?? 0);
    expect(after?.createdAt).toEqual(first?.createdAt);
    expect(created?.lastSeenAt).toBeInstanceOf(Date);
  });

  test("an adapter without listSessionsByUserId gets only the fields Auth.js sends", async () => {
    const memory = MemoryAdapter();
    const { listSessionsByUserId: _l, deleteSessionsByUserId: _d, ...rest } = memory;
    const createSession = vi.fn(memory.createSession);
    const adapter: Adapter = { ...rest, createSession };
    const { browser } = await setup({}, adapter as ReturnType<typeof MemoryAdapter>);
    await browser().signIn("alice");
    expect(Object.keys(createSession.mock.calls[0]?.[0] ?? {}).sort()).toEqual([
      "expires",
      "sessionToken",
      "userId",
    ]);
  });
});

describe("GET /sessions and POST /sessions/revoke (database)", () => {
  test("lists the caller's sessions, the current one marked, without tokens", async () => {
    const { browser, adapter } = await setup();
    const laptop = await browser(agents.chromeMac).signIn("alice");
    const phone = await browser(agents.safariIphone).signIn("alice");
    await browser(agents.firefoxLinux).signIn("bob");

    const fromLaptop = await listed(laptop);
    expect(fromLaptop.sessions).toHaveLength(2);
    expect(fromLaptop.current).toMatchObject({
      strategy: "database",
      client: "Chrome 131 on macOS",
      provider: "credentials",
    });
    const fromPhone = await listed(phone);
    expect(fromPhone.current?.id).not.toBe(fromLaptop.current?.id);
    expect(fromPhone.ids.sort()).toEqual(fromLaptop.ids.sort());
    const body = JSON.stringify(fromLaptop.sessions);
    for (const row of await adapter.listSessionsByUserId(users.alice.id)) {
      expect(body).not.toContain(row.sessionToken);
    }
  });

  test("signed out: 401 Unauthenticated", async () => {
    const { browser } = await setup();
    const anonymous = browser();
    expect(await anonymous.sessions()).toEqual({
      status: 401,
      body: { error: "Unauthenticated", message: expect.any(String) },
    });
    const { status, body } = await anonymous.revoke({ all: true });
    expect(status).toBe(401);
    expect(body.error).toBe("Unauthenticated");
  });

  test("revoking one session by id signs that browser out, and only it", async () => {
    const { browser } = await setup();
    const laptop = await browser(agents.chromeMac).signIn("alice");
    const phone = await browser(agents.safariIphone).signIn("alice");
    const phoneId = (await listed(phone)).current?.id;
    const { status, body } = await laptop.revoke({ id: phoneId });
    expect({ status, body }).toEqual({ status: 200, body: { revoked: 1 } });
    expect(await phone.session()).toBeNull();
    expect(await laptop.session()).toMatchObject({ user: { email: users.alice.email } });
    expect((await listed(laptop)).ids).toEqual([(await listed(laptop)).current?.id]);
  });

  test("revoking the current session by id signs this browser out and clears its cookie", async () => {
    const { browser, signOut } = await setup();
    const laptop = await browser().signIn("alice");
    const own = (await listed(laptop)).current?.id;
    const { body, response } = await laptop.revoke({ id: own });
    expect(body).toEqual({ revoked: 1 });
    expect(response.headers.getSetCookie().some((c) => c.startsWith(`${COOKIE}=;`))).toBe(true);
    expect(laptop.cookies.has(COOKIE)).toBe(false);
    expect(signOut).toHaveBeenCalledTimes(1);
  });

  test("others: every other session ends, this one stays", async () => {
    const { browser } = await setup();
    const laptop = await browser(agents.chromeMac).signIn("alice");
    const phone = await browser(agents.safariIphone).signIn("alice");
    const desktop = await browser(agents.firefoxLinux).signIn("alice");
    const bob = await browser().signIn("bob");
    expect((await laptop.revoke({ others: true })).body).toEqual({ revoked: 2 });
    expect(await phone.session()).toBeNull();
    expect(await desktop.session()).toBeNull();
    expect(await laptop.session()).not.toBeNull();
    expect(await bob.session()).not.toBeNull();
  });

  test("all (form body): every session ends, this browser's cookie is cleared", async () => {
    const { browser, config } = await setup();
    const laptop = await browser().signIn("alice");
    const phone = await browser(agents.safariIphone).signIn("alice");
    const { csrfToken } = await (await laptop.request("/auth/csrf")).json();
    const response = await laptop.request("/auth/sessions/revoke", {
      form: { csrfToken, all: "true" },
    });
    expect(await response.json()).toEqual({ revoked: 2 });
    expect(laptop.cookies.has(COOKIE)).toBe(false);
    expect(await phone.session()).toBeNull();
    expect(await listSessions(config, users.alice.id)).toEqual([]);
  });

  test("another user's session id is refused like an unknown one", async () => {
    const { browser } = await setup();
    const alice = await browser().signIn("alice");
    const bob = await browser(agents.firefoxLinux).signIn("bob");
    const bobsId = (await listed(bob)).current?.id;
    expect((await alice.revoke({ id: bobsId })).body).toEqual({ revoked: 0 });
    expect((await alice.revoke({ id: "A".repeat(22) })).body).toEqual({ revoked: 0 });
    expect(await bob.session()).not.toBeNull();
    expect((await listed(alice)).ids).not.toContain(bobsId);
  });

  test("a revocation without the CSRF token is refused (403) and ends nothing", async () => {
    const { browser, config } = await setup();
    const alice = await browser().signIn("alice");
    const { status, body } = await alice.revoke({ all: true }, { csrf: false });
    expect(status).toBe(403);
    expect(body.error).toBe("MissingCSRF");
    expect(await alice.session()).not.toBeNull();
    // One line for the refusal (the browser's untrusted X-Forwarded-For was told about once, at its sign-in).
    const warn = config.logger?.warn as unknown as { mock: { calls: [string, Error?][] } };
    expect(warn.mock.calls.filter(([code]) => code === "client-error")).toHaveLength(1);
    expect(config.logger?.error).not.toHaveBeenCalled();
  });

  test.each([
    [{}],
    [{ id: 42 }],
    [{ others: false }],
    [{ others: true, all: true }],
    [{ id: "x", all: true }],
  ])("a body that asks for no single revocation is a 400: %j", async (asked) => {
    const { browser } = await setup();
    const alice = await browser().signIn("alice");
    const { status, body } = await alice.revoke(asked);
    expect(status).toBe(400);
    expect(body.error).toBe("BadRequest");
    expect(await alice.session()).not.toBeNull();
  });

  test("GET /sessions/revoke is a 405; POST /sessions and /sessions/other are refused", async () => {
    const { browser } = await setup();
    const alice = await browser().signIn("alice");
    const get = await alice.request("/auth/sessions/revoke");
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    const post = await alice.request("/auth/sessions", { json: {} });
    expect(post.status).toBe(405);
    expect((await alice.request("/auth/sessions/other")).status).toBe(400);
    expect((await alice.request("/auth/sessions%2Frevoke", { json: {} })).status).toBe(400);
  });
});

describe("server API (database)", () => {
  test("listSessions, revokeSession and revokeUserSessions act on the named user only", async () => {
    const { browser, config } = await setup();
    const laptop = await browser().signIn("alice");
    const phone = await browser(agents.safariIphone).signIn("alice");
    const bob = await browser(agents.firefoxLinux).signIn("bob");

    const sessions = await listSessions(config, users.alice.id);
    expect(sessions).toHaveLength(2);
    expect(sessions.every((s) => s.current === false && s.strategy === "database")).toBe(true);
    const bobsId = (await listSessions(config, users.bob.id))[0]?.id ?? "";
    expect(await revokeSession(config, users.alice.id, bobsId)).toBe(false);
    expect(await bob.session()).not.toBeNull();

    const phoneId = (await listed(phone)).current?.id ?? "";
    const laptopId = (await listed(laptop)).current?.id ?? "";
    expect(await revokeSession(config, users.alice.id, phoneId)).toBe(true);
    expect(await revokeSession(config, users.alice.id, phoneId)).toBe(false);
    expect(await phone.session()).toBeNull();

    await browser(agents.firefoxLinux).signIn("alice");
    expect(await revokeUserSessions(config, users.alice.id, { except: laptopId })).toBe(1);
    expect(await laptop.session()).not.toBeNull();
    expect(await revokeUserSessions(config, users.alice.id)).toBe(1);
    expect(await laptop.session()).toBeNull();
    expect(await bob.session()).not.toBeNull();
    expect(await listSessions(config, "")).toEqual([]);
  });

  test("without listSessionsByUserId the server API says which method is missing", async () => {
    const memory = MemoryAdapter();
    const { listSessionsByUserId: _l, deleteSessionsByUserId: _d, ...adapter } = memory;
    const { config } = await setup({}, adapter as ReturnType<typeof MemoryAdapter>);
    await expect(listSessions(config, users.alice.id)).rejects.toThrow(/listSessionsByUserId/);
  });
});

describe("security log (database)", () => {
  test("each revocation is one sessionRevoked event with the public id and the reason", async () => {
    const store = MemorySecurityEventStore();
    const { browser, config, adapter } = await setup({ securityLog: { store } });
    const laptop = await browser().signIn("alice");
    const phone = await browser(agents.safariIphone).signIn("alice");
    const phoneId = (await listed(phone)).current?.id;
    await laptop.revoke({ id: phoneId });
    await revokeUserSessions(config, users.alice.id);
    const revoked = (await listSecurityEvents(config, users.alice.id)).filter(
      (e) => e.type === "sessionRevoked",
    );
    expect(revoked.map((e) => [e.sessionId, e.reason])).toEqual([
      [null, "revokedAllByServer"],
      [phoneId, "revokedByUser"],
    ]);
    expect(revoked[1]?.client).toBe("Chrome 131 on macOS");
    const text = JSON.stringify(revoked);
    for (const token of [laptop.cookies.get(COOKIE), phone.cookies.get(COOKIE)]) {
      expect(text).not.toContain(token ?? "-");
    }
    expect(await adapter.listSessionsByUserId(users.alice.id)).toEqual([]);
  });
});
