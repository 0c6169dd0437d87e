/**
 * JWT sessions from before the switch from Auth.js (cookies minted by @auth/core itself: no
 * `sid`, no `auth_time`) under a revocation store: "sign out everywhere else" leaves no other
 * cookie of the user working and keeps the caller signed in; such a token gains a `sid` at its
 * first re-issue, after which it is listed and ended on its own, and a revocation racing that
 * re-issue still ends it.
 */
import { listSessions, revokeSession, revokeUserSessions } from "@gatehousejs/core";
import { decode } from "@gatehousejs/core/jwt";
import { MemoryRevocationStore } from "@gatehousejs/core/revocation/memory";
import type { AuthConfig, JWT } from "@gatehousejs/core/types";
import { afterEach, describe, expect, test, vi } from "vitest";
import { SECRET } from "./helpers.js";
import { agents, Browser, COOKIE, listed, sessionsConfig, users } from "./sessions-helpers.js";
import { authjsSessionCookie } from "./support/authjs-session.js";

afterEach(() => {
  vi.useRealTimers();
});

function setup(overrides: Partial<AuthConfig> = {}) {
  const store = MemoryRevocationStore();
  const config = sessionsConfig({
    session: { strategy: "jwt", revocation: { store } },
    ...overrides,
  });
  return { store, config };
}

/** A browser holding a session cookie that Auth.js minted for `user`. */
async function authjsBrowser(config: AuthConfig, user = users.alice, agent = agents.chromeMac) {
  const browser = new Browser(config, agent);
  browser.cookies.set(COOKIE, await authjsSessionCookie(user));
  return browser;
}

async function tokenOf(browser: Browser): Promise<JWT> {
  const value = browser.cookies.get(COOKIE) ?? "";
  return (await decode({ token: value, secret: SECRET, salt: COOKIE })) as JWT;
}

describe("sign out everywhere else, from a session minted by Auth.js", () => {
  test("no other cookie of the user works, Auth.js's included; the caller stays signed in with a sid", async () => {
    const { config } = setup();
    const caller = await authjsBrowser(config);
    const stolen = await authjsBrowser(config, users.alice, agents.firefoxLinux);
    const ours = await new Browser(config, agents.safariIphone).signIn("alice");
    const bob = await authjsBrowser(config, users.bob);
    expect((await tokenOf(caller)).sid).toBeUndefined();
    expect((await listed(caller)).current).toMatchObject({ id: "legacy" });

    const { status, body, response } = await caller.revoke({ others: true });
    expect(status).toBe(200);
    expect(await stolen.session()).toBeNull();
    expect(await ours.session()).toBeNull();
    expect(body).toEqual({ revoked: 1 });
    // The caller's cookie is re-issued in the same response, now with a session id of its own.
    expect(response.headers.getSetCookie().some((c) => c.startsWith(`${COOKIE}=ey`))).toBe(true);
    const sid = (await tokenOf(caller)).sid;
    expect(sid).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect((await caller.session())?.user?.email).toBe(users.alice.email);
    expect((await listed(caller)).sessions.map((s) => [s.id, s.current])).toEqual([[sid, true]]);
    expect((await bob.session())?.user?.email).toBe(users.bob.email);
  });

  test("the server API's except: 'legacy' names no single session, so it spares none", async () => {
    const { config } = setup();
    const first = await authjsBrowser(config);
    const second = await authjsBrowser(config, users.alice, agents.firefoxLinux);
    const spared = await new Browser(config, agents.safariIphone).signIn("alice");
    const sparedId = (await tokenOf(spared)).sid as string;

    await revokeUserSessions(config, users.alice.id, { except: "legacy" });
    expect(await first.session()).toBeNull();
    expect(await second.session()).toBeNull();
    expect(await spared.session()).toBeNull();
    expect(await listSessions(config, users.alice.id)).toEqual([]);
    expect(sparedId).toBeTruthy();
  });

  test("an epoch that names 'legacy' as its exception (written by an older version) spares no Auth.js cookie", async () => {
    const { config, store } = setup();
    const browser = await authjsBrowser(config);
    await store.revokeUser({
      userId: users.alice.id,
      at: Math.floor(Date.now() / 1000),
      except: "legacy",
      expires: new Date(Date.now() + 3_600_000),
    });
    expect(await browser.session()).toBeNull();
  });
});

describe("a token without sid at its first re-issue", () => {
  test("gains a sid and keeps its issue time as auth_time; from then on it is listed and ends on its own", async () => {
    const { config } = setup();
    const rolled = await authjsBrowser(config);
    const other = await authjsBrowser(config, users.alice, agents.firefoxLinux);
    const { iat } = await tokenOf(rolled);

    // After updateAge (a day by default) the check re-issues the cookie.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 86_400_000 + 1000 });
    expect((await rolled.session())?.user?.email).toBe(users.alice.email);
    const token = await tokenOf(rolled);
    expect(token.sid).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(token.auth_time).toBe(iat);
    expect(token.iat).toBeGreaterThan(iat as number);

    const [record] = await listSessions(config, users.alice.id);
    expect(record).toMatchObject({
      id: token.sid,
      createdAt: new Date((iat as number) * 1000).toISOString(),
    });
    expect(await revokeSession(config, users.alice.id, token.sid as string)).toBe(true);
    expect(await rolled.session()).toBeNull();
    expect((await other.session())?.user?.email).toBe(users.alice.email);
  });

  test("a revocation of the user landing between the check and the re-issue still ends the re-issued cookie", async () => {
    let race: (() => Promise<void>) | undefined;
    const { config } = setup({
      callbacks: {
        // The jwt callback runs after the store was asked and before the cookie is re-issued.
        jwt: async ({ token }) => {
          await race?.();
          return token;
        },
      },
    });
    const browser = await authjsBrowser(config);
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 86_400_000 });
    race = async () => {
      race = undefined;
      await revokeUserSessions(config, users.alice.id);
      // The re-issue happens a few seconds later, after the revocation's second.
      vi.setSystemTime(Date.now() + 3000);
    };
    // This check was answered before the revocation; the cookie it re-issues is not.
    expect((await browser.session())?.user?.email).toBe(users.alice.email);
    expect(await browser.session()).toBeNull();
  });
});
