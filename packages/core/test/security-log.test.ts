/**
 * The security activity log through the public API: what `Auth()` records for sign-ins, refused
 * sign-ins, sign-outs, linked accounts and verified addresses, what `listSecurityEvents` reads
 * back, retention, store failures, and that records never hold a secret.
 */
import { runSecurityEventStoreTests } from "@gatehousejs/adapter-test";
import { listSecurityEvents } from "@gatehousejs/core";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import Credentials from "@gatehousejs/core/providers/credentials";
import { MemorySecurityEventStore } from "@gatehousejs/core/security-log/memory";
import type { AuthConfig, SecurityEventStore } from "@gatehousejs/core/types";
import { afterEach, describe, expect, test, vi } from "vitest";
import {
  alice,
  credentialsConfig,
  csrfToken,
  Jar,
  recordingLogger,
  SECRET,
  send,
} from "./helpers.js";
import { loggedFailures } from "./support/failures.js";

const CHROME_MAC =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const FIREFOX_LINUX = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";
const PASSWORD = "wonderland-correct-horse";
const DAY = 24 * 60 * 60 * 1000;

afterEach(() => {
  vi.useRealTimers();
});

/** Credentials that accept alice@example.com / PASSWORD, with alice stored in a memory adapter. */
async function world(options: Partial<AuthConfig> & { strategy?: "jwt" | "database" } = {}) {
  const { strategy = "jwt", ...overrides } = options;
  const adapter = MemoryAdapter();
  await adapter.createUser({ ...alice, emailVerified: null });
  const store = MemorySecurityEventStore();
  const events = { signIn: vi.fn(), signOut: vi.fn() };
  const logger = recordingLogger();
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger,
    adapter,
    events,
    session: { strategy },
    securityLog: { store },
    providers: [
      Credentials({
        credentials: { email: { label: "Email" }, password: { label: "Password" } },
        authorize: ({ email, password }) =>
          email === alice.email && password === PASSWORD ? { ...alice } : null,
      }),
    ],
    ...overrides,
  };
  return { config, adapter, store, events, logger };
}

async function signIn(
  config: AuthConfig,
  jar: Jar,
  fields: { email?: string; password?: string; agent?: string; forwardedFor?: string } = {},
) {
  const csrf = await csrfToken(config, jar);
  const headers: Record<string, string> = { "user-agent": fields.agent ?? CHROME_MAC };
  if (fields.forwardedFor) headers["x-forwarded-for"] = fields.forwardedFor;
  return send(config, jar, "/auth/callback/credentials", {
    form: {
      csrfToken: csrf,
      email: fields.email ?? alice.email,
      password: fields.password ?? PASSWORD,
    },
    headers,
  });
}

async function signOut(config: AuthConfig, jar: Jar) {
  const csrf = await csrfToken(config, jar);
  return send(config, jar, "/auth/signout", { form: { csrfToken: csrf } });
}

runSecurityEventStoreTests({ name: "MemorySecurityEventStore", store: MemorySecurityEventStore() });

describe("sign-in", () => {
  test("is recorded with the provider, its type and the client; the client is new only the first time", async () => {
    const { config } = await world();
    await signIn(config, new Jar());
    await signIn(config, new Jar());
    await signIn(config, new Jar(), { agent: FIREFOX_LINUX });
    const events = await listSecurityEvents(config, alice.id);
    expect(events.map((e) => [e.type, e.newClient])).toEqual([
      ["signIn", true],
      ["signIn", false],
      ["signIn", true],
    ]);
    expect(events[2]).toMatchObject({
      userId: alice.id,
      provider: "credentials",
      providerType: "credentials",
      client: expect.stringMatching(/^Chrome 131\b/),
      ip: null,
    });
    expect(events[0]!.client).toMatch(/^Firefox 133\b/);
    expect(events[0]!.at.getTime()).toBeGreaterThanOrEqual(events[1]!.at.getTime());
  });

  test("the address is kept only with session.recordIp, truncated to its /24", async () => {
    const off = await world();
    await signIn(off.config, new Jar(), { forwardedFor: "203.0.113.77, 10.0.0.1" });
    expect((await listSecurityEvents(off.config, alice.id))[0]!.ip).toBeNull();

    // The proxy at 10.0.0.1 is trusted; the entry left of it is the client.
    const on = await world({
      session: { strategy: "jwt", recordIp: true },
      trustedProxies: ["10.0.0.0/8"],
    });
    await signIn(on.config, new Jar(), { forwardedFor: "203.0.113.77, 10.0.0.1" });
    const [event] = await listSecurityEvents(on.config, alice.id);
    expect(event!.ip).toBe("203.0.113.0");
    expect(JSON.stringify(event)).not.toContain("203.0.113.77");
  });

  test("the events callbacks fire exactly as they do without the log", async () => {
    const withLog = await world();
    const withoutLog = await world({ securityLog: undefined });
    for (const { config } of [withLog, withoutLog]) {
      const jar = new Jar();
      await signIn(config, jar);
      await signOut(config, jar);
    }
    for (const { events } of [withLog, withoutLog]) {
      expect(events.signIn).toHaveBeenCalledTimes(1);
      expect(events.signOut).toHaveBeenCalledTimes(1);
    }
    expect(withLog.events.signIn.mock.calls[0]![0]).toEqual(
      withoutLog.events.signIn.mock.calls[0]![0],
    );
    expect(await listSecurityEvents(withLog.config, alice.id)).toHaveLength(2);
  });
});

describe("refused sign-in", () => {
  test("a wrong password for a stored address records signInFailed for that user", async () => {
    const { config } = await world();
    const response = await signIn(config, new Jar(), { password: "not-the-password" });
    expect(response.headers.get("location")).toContain("error=CredentialsSignin");
    const events = await listSecurityEvents(config, alice.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: "signInFailed",
      reason: "CredentialsSignin",
      provider: "credentials",
      newClient: null,
    });
  });

  test("an address nobody has records nothing", async () => {
    const { config, store } = await world();
    const record = vi.spyOn(store, "record");
    await signIn(config, new Jar(), { email: "nobody@example.com", password: "x" });
    expect(record).not.toHaveBeenCalled();
  });

  test("a sign-in the signIn callback refuses is recorded as AccessDenied", async () => {
    const { config } = await world({ callbacks: { signIn: () => false } });
    const response = await signIn(config, new Jar());
    expect(response.headers.get("location")).toContain("error=AccessDenied");
    const [event] = await listSecurityEvents(config, alice.id);
    expect(event).toMatchObject({ type: "signInFailed", reason: "AccessDenied" });
  });
});

describe.each(["jwt", "database"] as const)("sign-out (%s sessions)", (strategy) => {
  test("is recorded with the session's public id, never its token", async () => {
    const { config } = await world({ strategy });
    const jar = new Jar();
    await signIn(config, jar);
    const token = jar.cookies.get("authjs.session-token")!;
    await signOut(config, jar);
    const [event] = await listSecurityEvents(config, alice.id);
    expect(event).toMatchObject({ type: "signOut", userId: alice.id });
    expect(event!.sessionId).toMatch(/^([A-Za-z0-9_-]{22}|legacy)$/);
    expect(JSON.stringify(event)).not.toContain(token);
  });
});

describe("no secret reaches a record", () => {
  test("password, secret, session token, CSRF token and full address appear in no event", async () => {
    const { config, adapter } = await world({
      session: { strategy: "database", recordIp: true },
      trustedProxies: 1,
    });
    const jar = new Jar();
    const address = "198.51.100.201";
    await signIn(config, jar, { password: "wrong-password-123", forwardedFor: address });
    await signIn(config, jar, { forwardedFor: address });
    const sessionToken = jar.cookies.get("authjs.session-token")!;
    const csrf = await csrfToken(config, jar);
    await signOut(config, jar);
    const events = await listSecurityEvents(config, alice.id);
    expect(events.map((e) => e.type)).toEqual(["signOut", "signIn", "signInFailed"]);
    const text = JSON.stringify(events);
    for (const secret of [PASSWORD, "wrong-password-123", SECRET, sessionToken, csrf, address]) {
      expect(text).not.toContain(secret);
    }
    expect(await adapter.getSessionAndUser(sessionToken)).toBeNull();
  });
});

describe("a failing store", () => {
  function failing(): SecurityEventStore {
    return {
      record: () => Promise.reject(new Error("connection refused")),
      list: () => Promise.reject(new Error("connection refused")),
      prune: () => Promise.reject(new Error("connection refused")),
    };
  }

  test("never fails the sign-in or the sign-out: one error line each", async () => {
    const { config, logger, events } = await world({ securityLog: { store: failing() } });
    const jar = new Jar();
    const response = await signIn(config, jar);
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).not.toContain("error=");
    expect(jar.cookies.get("authjs.session-token")).toBeTruthy();
    expect(loggedFailures(logger)).toEqual([
      expect.objectContaining({
        level: "error",
        type: "AdapterError",
        message: expect.stringMatching(/signIn/),
      }),
    ]);
    const out = await signOut(config, jar);
    expect(out.status).toBe(302);
    expect(jar.cookies.has("authjs.session-token")).toBe(false);
    expect(loggedFailures(logger)).toHaveLength(2);
    expect(events.signIn).toHaveBeenCalledTimes(1);
    expect(events.signOut).toHaveBeenCalledTimes(1);
    expect(JSON.stringify(logger.error.mock.calls)).not.toContain(PASSWORD);
  });
});

test("a prune that fails is one error line; the event is recorded and the sign-in goes on", async () => {
  const store = MemorySecurityEventStore();
  vi.spyOn(store, "prune").mockRejectedValue(new Error("timeout"));
  const { config, logger } = await world({ securityLog: { store } });
  const response = await signIn(config, new Jar());
  expect(response.headers.get("location")).not.toContain("error=");
  expect(loggedFailures(logger)).toEqual([
    expect.objectContaining({ type: "AdapterError", message: expect.stringMatching(/pruned/) }),
  ]);
  expect((await store.list(alice.id, { limit: 10 })).map((e) => e.type)).toEqual(["signIn"]);
});

describe("listSecurityEvents", () => {
  async function seeded(count: number, retentionDays?: number) {
    const store = MemorySecurityEventStore();
    const config = credentialsConfig({ securityLog: { store, retentionDays } });
    const now = Date.now();
    for (let i = 0; i < count; i++) {
      await store.record({
        id: `e${i}`,
        userId: "u",
        type: "signIn",
        at: new Date(now - i * DAY - 1),
      });
    }
    return { store, config };
  }

  test("reads newest first, 50 by default, and pages with before", async () => {
    const { config } = await seeded(60);
    const first = await listSecurityEvents(config, "u");
    expect(first.map((e) => e.id)).toEqual(Array.from({ length: 50 }, (_, i) => `e${i}`));
    const next = await listSecurityEvents(config, "u", { limit: 5, before: first.at(-1)!.at });
    expect(next.map((e) => e.id)).toEqual(["e50", "e51", "e52", "e53", "e54"]);
    expect(await listSecurityEvents(config, "someone-else")).toEqual([]);
  });

  test("events past the retention are not listed, even before the store is pruned", async () => {
    const { config, store } = await seeded(40, 30);
    const prune = vi.spyOn(store, "prune").mockResolvedValue();
    const events = await listSecurityEvents(config, "u");
    expect(events.map((e) => e.id)).toEqual(Array.from({ length: 30 }, (_, i) => `e${i}`));
    expect(prune).toHaveBeenCalledTimes(1);
  });

  test("the default retention is 90 days and prune runs at most once an hour per store", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.UTC(2026, 10, 22, 12));
    const { config, store } = await seeded(100);
    const prune = vi.spyOn(store, "prune");
    expect(await listSecurityEvents(config, "u", { limit: 1000 })).toHaveLength(90);
    expect(prune).toHaveBeenCalledTimes(1);
    expect(prune.mock.calls[0]![0].getTime()).toBe(Date.now() - 90 * DAY);
    await listSecurityEvents(config, "u");
    vi.setSystemTime(Date.now() + 59 * 60 * 1000);
    await listSecurityEvents(config, "u");
    expect(prune).toHaveBeenCalledTimes(1);
    vi.setSystemTime(Date.now() + 2 * 60 * 1000);
    await listSecurityEvents(config, "u");
    expect(prune).toHaveBeenCalledTimes(2);
    // What prune removed is gone from the store itself.
    expect(await store.list("u", { limit: 1000 })).toHaveLength(90);
  });

  test("a configuration without the log, and a limit or before out of range, throw", async () => {
    const { config } = await seeded(1);
    await expect(listSecurityEvents(credentialsConfig(), "u")).rejects.toThrow(/securityLog/);
    for (const limit of [0, -1, 1.5, 1001, Number.NaN]) {
      await expect(listSecurityEvents(config, "u", { limit })).rejects.toThrow(TypeError);
    }
    await expect(listSecurityEvents(config, "u", { before: new Date("x") })).rejects.toThrow(
      TypeError,
    );
  });
});
