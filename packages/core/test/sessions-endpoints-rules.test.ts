/**
 * GET /sessions and POST /sessions/revoke, answer by answer: what a client reads in each refusal
 * and fault (status, error, message), what the log says and names, which security-log reason each
 * revocation records, the current session when no store lists it, and what a token without `sid`
 * gets from "sign out everywhere".
 */
import { listSecurityEvents, skipCSRFCheck } from "@gatehousejs/core";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { encode } from "@gatehousejs/core/jwt";
import { MemoryRevocationStore } from "@gatehousejs/core/revocation/memory";
import { MemorySecurityEventStore } from "@gatehousejs/core/security-log/memory";
import type { AuthConfig } from "@gatehousejs/core/types";
import { describe, expect, test } from "vitest";
import { type recordingLogger, SECRET, send } from "./helpers.js";
import { agents, Browser, COOKIE, listed, sessionsConfig, users } from "./sessions-helpers.js";

type Logger = ReturnType<typeof recordingLogger>;

const loggerOf = (config: AuthConfig) => config.logger as Logger;
const errors = (config: AuthConfig) => loggerOf(config).error.mock.calls.map((c) => c[0] as Error);

type Memory = ReturnType<typeof MemoryAdapter>;
type Faulty = "getSessionAndUser" | "listSessionsByUserId" | "deleteSessionsByUserId";

/**
 * Database sessions on the memory adapter, whose session methods can be made to misbehave later:
 * `faults[method]` answers instead of the adapter while it is set.
 */
async function database(overrides: Partial<AuthConfig> = {}) {
  const memory = MemoryAdapter();
  for (const user of Object.values(users)) {
    await memory.createUser({ ...user, emailVerified: null });
  }
  const faults: Partial<Record<Faulty, () => Promise<never>>> = {};
  const adapter: Memory = { ...memory };
  for (const name of [
    "getSessionAndUser",
    "listSessionsByUserId",
    "deleteSessionsByUserId",
  ] as const) {
    const method = memory[name] as (...args: unknown[]) => unknown;
    (adapter as unknown as Record<string, unknown>)[name] = (...args: unknown[]) =>
      faults[name] ? faults[name]() : method.apply(memory, args);
  }
  const config = sessionsConfig({ adapter, session: { strategy: "database" }, ...overrides });
  return { memory, faults, config };
}

describe("what a client reads when it is refused", () => {
  test("signed out: a 401 that says to sign in", async () => {
    const { config } = await database();
    const { status, body } = await new Browser(config, agents.chromeMac).sessions();
    expect(status).toBe(401);
    expect(body.error).toBe("Unauthenticated");
    expect(body.message).toMatch(/^Sign in to manage sessions$/);
  });

  test("a body that asks for no single revocation: a 400 naming the three forms, and one warn line", async () => {
    const { config } = await database();
    const alice = await new Browser(config, agents.chromeMac).signIn("alice");
    const bodies = [{ id: "" }, { all: false }, { all: "yes" }, { id: 7 }];
    for (const asked of bodies) {
      const { status, body } = await alice.revoke(asked);
      expect(status).toBe(400);
      expect(body.error).toBe("BadRequest");
      expect(body.message).toMatch(/"id".*"others": true.*"all": true/);
    }
    const refusals = loggerOf(config).warn.mock.calls.filter(([code]) => code === "client-error");
    expect(refusals).toHaveLength(bodies.length);
    expect(refusals[0]?.[1]).toMatchObject({ name: "BadRequest" });
    expect(await alice.session()).not.toBeNull();
  });

  test("no body at all (the app checks CSRF itself): the same 400, not a crash", async () => {
    const { config } = await database({ skipCSRFCheck });
    const alice = new Browser(config, agents.chromeMac);
    await alice.request("/auth/callback/credentials", {
      form: { username: "alice", password: "pw" },
    });
    expect(alice.cookies.has(COOKIE)).toBe(true);
    const response = await send(config, alice, "/auth/sessions/revoke", {
      method: "POST",
      headers: alice.headers,
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe("BadRequest");
  });

  test("no CSRF token: a 403 that says so", async () => {
    const { config } = await database();
    const alice = await new Browser(config, agents.chromeMac).signIn("alice");
    const { status, body } = await alice.revoke({ all: true }, { csrf: false });
    expect(status).toBe(403);
    expect(body).toEqual({
      error: "MissingCSRF",
      message: "The CSRF token is missing or does not match its cookie",
    });
  });
});

describe("what a client and the log read when the store fails", () => {
  test("the session lookup failing: 503 for the listing and for a revocation; the log names the lookup", async () => {
    const { faults, config } = await database();
    const alice = await new Browser(config, agents.chromeMac).signIn("alice");
    faults.getSessionAndUser = () => Promise.reject(new Error("connect ECONNREFUSED"));
    const listing = await alice.sessions();
    expect(listing.status).toBe(503);
    expect(listing.body.message).toMatch(/^The sessions could not be read or revoked right now\./);
    expect((await alice.revoke({ others: true })).status).toBe(503);
    const logged = errors(config);
    expect(logged).toHaveLength(2);
    for (const error of logged) {
      expect(error.message).toBe(
        "The session store is unavailable (the session lookup did not succeed before the deadline)",
      );
    }
  });

  test("the session list failing: 503, and the log names the list", async () => {
    const { faults, config } = await database();
    const alice = await new Browser(config, agents.chromeMac).signIn("alice");
    faults.listSessionsByUserId = () => Promise.reject(new Error("connect ECONNREFUSED"));
    expect((await alice.sessions()).status).toBe(503);
    expect(errors(config).map((e) => e.message)).toEqual([
      "The session store is unavailable (the session list did not succeed before the deadline)",
    ]);
  });

  test("a revocation the store refuses: 503, logged as the store's failure with the adapter's error as its cause", async () => {
    const { faults, config } = await database();
    const alice = await new Browser(config, agents.chromeMac).signIn("alice");
    const refused = new Error("deadlock detected");
    faults.deleteSessionsByUserId = () => Promise.reject(refused);
    const { status, response } = await alice.revoke({ others: true });
    expect(status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("5");
    const [logged, ...more] = errors(config);
    expect(more).toEqual([]);
    expect(logged?.name).toBe("SessionStoreUnavailable");
    expect(logged?.message).toBe("The session store failed while sessions were read or revoked");
    expect(logged?.cause).toMatchObject({ name: "AdapterError", cause: refused });
  });

  test("a revocation that never answers: 503 at the deadline, and the log names the revocation", async () => {
    const { faults, config } = await database();
    const alice = await new Browser(config, agents.chromeMac).signIn("alice");
    faults.deleteSessionsByUserId = () => new Promise<never>(() => {});
    expect((await alice.revoke({ others: true })).status).toBe(503);
    expect(errors(config).map((e) => e.message)).toEqual([
      "The session store is unavailable (the revocation: no answer in time)",
    ]);
  });

  test("a configuration fault: a 500 that points at the server logs", async () => {
    const memory = MemoryAdapter();
    await memory.createUser({ ...users.alice, emailVerified: null });
    const { listSessionsByUserId: _list, deleteSessionsByUserId: _delete, ...adapter } = memory;
    const config = sessionsConfig({ adapter, session: { strategy: "database" } });
    const alice = await new Browser(config, agents.chromeMac).signIn("alice");
    const { status, body } = await alice.revoke({ others: true });
    expect(status).toBe(500);
    expect(body).toEqual({
      error: "Configuration",
      message: "Sessions could not be managed. Check the server logs.",
    });
  });
});

describe("the security log of each revocation", () => {
  test("by id (this browser), others, all: revokedByUser with the id, signOutOthers, signOutEverywhere", async () => {
    const securityLog = { store: MemorySecurityEventStore() };
    const config = sessionsConfig({
      session: { strategy: "jwt", revocation: { store: MemoryRevocationStore() } },
      securityLog,
    });
    const laptop = await new Browser(config, agents.chromeMac).signIn("alice");
    const laptopId = (await listed(laptop)).current?.id;
    expect((await laptop.revoke({ id: laptopId })).body).toEqual({ revoked: 1 });
    const phone = await new Browser(config, agents.safariIphone).signIn("alice");
    await phone.revoke({ others: true });
    await phone.revoke({ all: true });
    const revoked = (await listSecurityEvents(config, users.alice.id))
      .filter((e) => e.type === "sessionRevoked")
      .reverse();
    expect(revoked.map((e) => [e.reason, e.sessionId])).toEqual([
      ["revokedByUser", laptopId],
      ["signOutOthers", null],
      ["signOutEverywhere", null],
    ]);
  });

  test("JWT without a revocation store: another session's id ends nothing (no error); all ends this browser, recorded", async () => {
    const securityLog = { store: MemorySecurityEventStore() };
    const config = sessionsConfig({ session: { strategy: "jwt" }, securityLog });
    const laptop = await new Browser(config, agents.chromeMac).signIn("alice");
    const phone = await new Browser(config, agents.safariIphone).signIn("alice");
    const phoneId = (await listed(phone)).current?.id;
    expect((await laptop.revoke({ id: phoneId })).body).toEqual({ revoked: 0 });
    expect(await phone.session()).not.toBeNull();
    expect((await laptop.revoke({ all: true })).body).toEqual({ revoked: 1 });
    expect(await laptop.session()).toBeNull();
    expect(errors(config)).toEqual([]);
    const revoked = (await listSecurityEvents(config, users.alice.id)).filter(
      (e) => e.type === "sessionRevoked",
    );
    expect(revoked.map((e) => [e.reason, e.sessionId])).toEqual([["signOutEverywhere", null]]);
  });
});

describe("the current session when no store lists it", () => {
  test("JWT without a store: listed from the token, with when it began", async () => {
    const config = sessionsConfig({ session: { strategy: "jwt" } });
    const before = Date.now();
    const laptop = await new Browser(config, agents.chromeMac).signIn("alice");
    const { current } = await listed(laptop);
    expect(current).toMatchObject({ strategy: "jwt", current: true });
    const began = Date.parse((current as unknown as { createdAt: string }).createdAt);
    expect(began).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(began).toBeLessThanOrEqual(Date.now());
  });

  test("a database whose listing misses this browser's row (a lagging replica): still listed, as a database session", async () => {
    const { faults, config } = await database();
    const laptop = await new Browser(config, agents.chromeMac).signIn("alice");
    faults.listSessionsByUserId = async () => [] as never;
    const { sessions, current } = await listed(laptop);
    expect(sessions).toHaveLength(1);
    expect(current).toMatchObject({ strategy: "database", current: true });
  });
});

test("sign out everywhere from a token without sid: every session ends, and no new cookie is handed out", async () => {
  const config = sessionsConfig({
    session: { strategy: "jwt", revocation: { store: MemoryRevocationStore() } },
  });
  const phone = await new Browser(config, agents.safariIphone).signIn("alice");
  const legacy = new Browser(config, agents.chromeMac);
  legacy.cookies.set(
    COOKIE,
    await encode({
      token: {
        sub: users.alice.id,
        email: users.alice.email,
        iat: Math.floor(Date.now() / 1000) - 60,
      },
      secret: SECRET,
      salt: COOKIE,
    }),
  );
  const { body, response } = await legacy.revoke({ all: true });
  expect(body.revoked).toBeGreaterThanOrEqual(1);
  const written = response.headers
    .getSetCookie()
    .filter((cookie) => cookie.startsWith(`${COOKIE}=`));
  expect(written.length).toBeGreaterThan(0);
  for (const cookie of written) expect(cookie).toMatch(/^authjs\.session-token=;|Max-Age=0/);
  expect(await phone.session()).toBeNull();
});
