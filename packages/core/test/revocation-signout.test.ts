/**
 * Signing out of a JWT session with a revocation store (features/sessions/revocation.ts): the
 * token's own session is revoked until the later of the token's expiry and a full session's
 * lifetime from now, so a copy of the cookie stops working however long it would have lasted. A
 * token that cannot be revoked alone (no `sid`, or no subject) is not written to the store, and a
 * store that never answers is named in the error that says so.
 */
import { encode } from "@gatehousejs/core/jwt";
import { MemoryRevocationStore } from "@gatehousejs/core/revocation/memory";
import type { AuthConfig, LoggerInstance, RevocationStore } from "@gatehousejs/core/types";
import { afterEach, describe, expect, test, vi } from "vitest";
import { csrfToken, SECRET, send } from "./helpers.js";
import { agents, Browser, COOKIE, sessionsConfig, users } from "./sessions-helpers.js";

const DAY = 24 * 60 * 60;
const MAX_AGE = 30 * DAY;

afterEach(() => {
  vi.useRealTimers();
});

/** A revocation store that records what sign-outs ask it to revoke. */
function recordingStore() {
  const memory = MemoryRevocationStore();
  const revoked: Parameters<RevocationStore["revokeSession"]>[0][] = [];
  const store: RevocationStore = {
    ...memory,
    revokeSession: async (params) => {
      revoked.push(params);
      await memory.revokeSession(params);
    },
  };
  return { store, revoked };
}

function setup(store: RevocationStore): AuthConfig {
  return sessionsConfig({ session: { strategy: "jwt", maxAge: MAX_AGE, revocation: { store } } });
}

async function signOut(browser: Browser) {
  const token = await csrfToken(browser.config, browser);
  return send(browser.config, browser, "/auth/signout", {
    form: { csrfToken: token, callbackUrl: "/bye" },
    headers: browser.headers,
  });
}

describe("signing out of a JWT session with a revocation store", () => {
  test("revokes the token's session until a full session's lifetime from now, when that is later than the token's expiry", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const start = new Date("2026-11-26T12:00:00Z").getTime();
    vi.setSystemTime(start);
    const { store, revoked } = recordingStore();
    const browser = await new Browser(setup(store), agents.chromeMac).signIn("alice");
    // A day later the token still expires 30 days after the sign-in: now + 30 days is later.
    vi.setSystemTime(start + DAY * 1000);
    expect((await signOut(browser)).status).toBe(302);
    expect(revoked).toHaveLength(1);
    expect(revoked[0]).toMatchObject({ userId: users.alice.id });
    expect(typeof revoked[0]!.sessionId).toBe("string");
    expect(revoked[0]!.expires.getTime()).toBe(start + DAY * 1000 + MAX_AGE * 1000);
  });

  test("revokes it until the token's own expiry when that is later", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const now = new Date("2026-11-26T12:00:00Z").getTime();
    vi.setSystemTime(now);
    const { store, revoked } = recordingStore();
    const config = setup(store);
    const browser = new Browser(config, agents.chromeMac);
    // A token made to last ten session lifetimes (by an app's own encode, say).
    const exp = Math.floor(now / 1000) + 10 * MAX_AGE;
    browser.cookies.set(
      COOKIE,
      await encode({
        token: { sub: users.alice.id, sid: "long-lived-session", exp },
        secret: SECRET,
        salt: COOKIE,
        maxAge: 10 * MAX_AGE,
      }),
    );
    expect((await signOut(browser)).status).toBe(302);
    expect(revoked).toEqual([
      { userId: users.alice.id, sessionId: "long-lived-session", expires: new Date(exp * 1000) },
    ]);
  });

  test.each([
    ["without a sid (an Auth.js token)", { sub: users.alice.id }],
    ["without a subject", { sid: "orphan-session" }],
  ])("a token %s is not revoked alone: nothing is written", async (_, claims) => {
    const { store, revoked } = recordingStore();
    const browser = new Browser(setup(store), agents.chromeMac);
    browser.cookies.set(COOKIE, await encode({ token: claims, secret: SECRET, salt: COOKIE }));
    const response = await signOut(browser);
    expect(response.status).toBe(302);
    expect(revoked).toEqual([]);
    // The cookie is cleared all the same.
    expect(browser.cookies.has(COOKIE)).toBe(false);
  });

  test("a store that never takes the revocation is named in the error that says the sign-out did not happen", async () => {
    const memory = MemoryRevocationStore();
    const down: RevocationStore = {
      ...memory,
      revokeSession: async () => {
        throw new Error("ECONNREFUSED");
      },
    };
    const config = setup(down);
    const browser = await new Browser(config, agents.chromeMac).signIn("alice");
    const response = await signOut(browser);
    expect(response.status).toBe(503);
    const errors = (config.logger as unknown as { error: ReturnType<typeof vi.fn> }).error.mock
      .calls as [Error][];
    const unavailable = errors.map(([e]) => e).find((e) => e.name === "SessionStoreUnavailable");
    expect(unavailable?.message).toContain("revokeSession");
    expect((config.logger as LoggerInstance).error).toHaveBeenCalledTimes(1);
  }, 20_000);
});
