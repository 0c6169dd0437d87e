import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { MemoryRevocationStore } from "@gatehousejs/core/revocation/memory";
import type { SolidAuthConfig } from "@gatehousejs/solid-start";
import {
  configureClient,
  createSession,
  listSessions,
  revokeSessions,
  signIn,
} from "@gatehousejs/solid-start/client";
import Credentials from "@gatehousejs/solid-start/providers/credentials";
import { createRoot } from "solid-js";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { fakeBrowser, type Sent } from "./fake-browser.js";
import { credentialsConfig, SESSION_COOKIE } from "./support.js";

// The client runs in browsers: solid-js's browser builds (see client.test.ts).
vi.mock("solid-js", () => import("solid-js/dist/solid.js"));
vi.mock("solid-js/web", () => import("solid-js/web/dist/web.js"));

beforeEach(() => {
  configureClient({});
});

afterEach(() => {
  vi.unstubAllGlobals();
  configureClient({});
});

const PASSWORDS: Record<string, { id: string; name: string; email: string; password: string }> = {
  alice: { id: "user-1", name: "Alice", email: "alice@example.com", password: "wonderland" },
  bob: { id: "user-2", name: "Bob", email: "bob@example.com", password: "builder" },
};

/** Alice and Bob in a memory adapter: a credentials sign-in's database session needs its user. */
function adapterWithUsers() {
  const adapter = MemoryAdapter();
  for (const { id, name, email } of Object.values(PASSWORDS)) {
    void adapter.createUser({ id, name, email, emailVerified: null });
  }
  return adapter;
}

/** Alice and Bob sign in with passwords; sessions are listed and ended per `strategy`. */
function sessionsConfig(strategy: "jwt" | "database"): SolidAuthConfig {
  return credentialsConfig({
    ...(strategy === "database" ? { adapter: adapterWithUsers() } : {}),
    session: { strategy, revocation: { store: MemoryRevocationStore() } },
    providers: [
      Credentials({
        credentials: { username: { label: "Username" }, password: { label: "Password" } },
        authorize: ({ username, password }) => {
          const user = typeof username === "string" ? PASSWORDS[username] : undefined;
          return user && user.password === password
            ? { id: user.id, name: user.name, email: user.email }
            : null;
        },
      }),
    ],
  });
}

/** A fake browser of its own (its own cookies) on `config`'s server, signed in as `username`. */
async function signedIn(config: SolidAuthConfig, username: "alice" | "bob") {
  const browser = fakeBrowser(config);
  const result = await signIn("credentials", {
    username,
    password: PASSWORDS[username]!.password,
    redirect: false,
  });
  expect(result.ok).toBe(true);
  return browser;
}

const requests = (sent: Sent[]) => sent.map((s) => `${s.method} ${s.url.pathname}`);

describe.each(["jwt", "database"] as const)("%s sessions", (strategy) => {
  test("listSessions: both of the user's sessions, this one marked, ids that are not tokens", async () => {
    const config = sessionsConfig(strategy);
    const first = await signedIn(config, "alice");
    const second = await signedIn(config, "alice");

    const seenBySecond = await listSessions();
    expect(seenBySecond).toHaveLength(2);
    first.use();
    const seenByFirst = (await listSessions())!;
    expect(seenByFirst).toHaveLength(2);
    expect(seenByFirst.filter((s) => s.current)).toHaveLength(1);
    expect(new Set(seenByFirst.map((s) => s.id))).toEqual(new Set(seenBySecond!.map((s) => s.id)));
    const mine = seenByFirst.find((s) => s.current)!;
    expect(seenBySecond!.find((s) => s.current)!.id).not.toBe(mine.id);
    for (const session of seenByFirst) {
      expect(session.strategy).toBe(strategy);
      for (const token of [first.jar.get(SESSION_COOKIE), second.jar.get(SESSION_COOKIE)]) {
        expect(JSON.stringify(session)).not.toContain(token!);
      }
    }
    expect(requests(first.sent).at(-1)).toBe("GET /api/auth/sessions");
  });

  test("revokeSessions({ id }): the other browser is signed out on its next request", async () => {
    const config = sessionsConfig(strategy);
    const first = await signedIn(config, "alice");
    const second = await signedIn(config, "alice");
    const secondId = (await listSessions())!.find((s) => s.current)!.id;

    first.use();
    first.sent.length = 0;
    expect(await revokeSessions({ id: secondId })).toEqual({ revoked: 1 });
    // The protocol: the CSRF token, then JSON with it and the target.
    expect(requests(first.sent)).toEqual(["GET /api/auth/csrf", "POST /api/auth/sessions/revoke"]);
    const post = first.sent[1]!;
    expect(post.headers.get("content-type")).toBe("application/json");
    expect(JSON.parse(post.body)).toEqual({ id: secondId, csrfToken: expect.any(String) });
    // The same id again: already gone.
    expect(await revokeSessions({ id: secondId })).toEqual({ revoked: 0 });
    expect((await listSessions())!.map((s) => s.current)).toEqual([true]);

    // Its next request is refused; reading the session also clears its cookie.
    second.use();
    expect(await listSessions()).toBeNull();
    const session = await fetch("/api/auth/session");
    expect(await session.json()).toBeNull();
    expect(second.jar.get(SESSION_COOKIE)).toBeUndefined();
  });

  test("revokeSessions({ others: true }) ends every session but this one", async () => {
    const config = sessionsConfig(strategy);
    const others = [await signedIn(config, "alice"), await signedIn(config, "alice")];
    const me = await signedIn(config, "alice");
    expect(await listSessions()).toHaveLength(3);

    expect(await revokeSessions({ others: true })).toEqual({ revoked: 2 });
    expect((await listSessions())!.map((s) => s.current)).toEqual([true]);
    for (const browser of others) {
      browser.use();
      expect(await listSessions()).toBeNull();
    }
    me.use();
    expect(await listSessions()).toHaveLength(1);
  });

  test("revokeSessions({ all: true }) signs this browser out too, and createSession follows", async () => {
    const config = sessionsConfig(strategy);
    const other = await signedIn(config, "alice");
    const me = await signedIn(config, "alice");
    const [auth, dispose] = createRoot((dispose) => [createSession(), dispose] as const);
    try {
      await vi.waitFor(() => expect(auth.status()).toBe("authenticated"));

      expect(await revokeSessions({ all: true })).toEqual({ revoked: 2 });
      await vi.waitFor(() => expect(auth.status()).toBe("unauthenticated"));
      expect(me.jar.get(SESSION_COOKIE)).toBeUndefined();
      expect(await listSessions()).toBeNull();
      other.use();
      expect(await listSessions()).toBeNull();
    } finally {
      dispose();
    }
  });

  test("another user's session id ends nothing and is not listed", async () => {
    const config = sessionsConfig(strategy);
    const bob = await signedIn(config, "bob");
    const bobsId = (await listSessions())!.find((s) => s.current)!.id;
    await signedIn(config, "alice");
    const alices = (await listSessions())!;
    expect(alices.map((s) => s.id)).not.toContain(bobsId);

    expect(await revokeSessions({ id: bobsId })).toEqual({ revoked: 0 });
    expect(await revokeSessions({ id: "no-such-session-id-000" })).toEqual({ revoked: 0 });
    bob.use();
    expect(await listSessions()).toHaveLength(1);
  });
});

describe("signed out, bad targets, another base path", () => {
  test("signed out: listSessions is null, revokeSessions rejects with the status", async () => {
    fakeBrowser(sessionsConfig("jwt"));
    expect(await listSessions()).toBeNull();
    await expect(revokeSessions({ others: true })).rejects.toThrow(/401/);
  });

  test("a target that is none of the three is a TypeError before any request", async () => {
    const browser = fakeBrowser(sessionsConfig("jwt"));
    for (const target of [{ id: "" }, { others: false }, { all: "yes" }, {}]) {
      await expect(revokeSessions(target as never)).rejects.toThrow(TypeError);
    }
    expect(browser.sent).toEqual([]);
  });

  test("the base path: per call and configured", async () => {
    const config = { ...sessionsConfig("database"), prefix: "/auth/gate" };
    const browser = fakeBrowser(config);
    const result = await signIn("credentials", {
      username: "alice",
      password: "wonderland",
      redirect: false,
      basePath: "/auth/gate",
    });
    expect(result.ok).toBe(true);
    expect(await listSessions({ basePath: "/auth/gate" })).toHaveLength(1);
    configureClient({ basePath: "/auth/gate" });
    expect(await revokeSessions({ others: true })).toEqual({ revoked: 0 });
    expect(browser.sent.every((s) => s.url.pathname.startsWith("/auth/gate/"))).toBe(true);
  });
});
