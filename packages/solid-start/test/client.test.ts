import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { MemoryRevocationStore } from "@gatehousejs/core/revocation/memory";
import {
  AuthRouteError,
  configureClient,
  createSession,
  listSessions,
  signIn,
  signOut,
} from "@gatehousejs/solid-start/client";
import Email from "@gatehousejs/solid-start/providers/email";
import { createMemo, createRoot, createSignal } from "solid-js";
import { isServer } from "solid-js/web";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { fakeBrowser, type Sent } from "./fake-browser.js";
import { credentialsConfig, ORIGIN } from "./support.js";

// The client runs in browsers: load solid-js's browser builds (reactive signals, isServer false)
// where Node would pick the server builds.
vi.mock("solid-js", () => import("solid-js/dist/solid.js"));
vi.mock("solid-js/web", () => import("solid-js/web/dist/web.js"));

const lastPost = (sent: Sent[]) => sent.filter((s) => s.method === "POST").at(-1)!;

beforeEach(() => {
  configureClient({});
});

afterEach(() => {
  vi.unstubAllGlobals();
  configureClient({});
});

test("the client modules run as in a browser (solid-js browser builds)", () => {
  expect(isServer).toBe(false);
  // Reactive signals: a memo follows its source, which the server build's never does.
  createRoot((dispose) => {
    const [count, setCount] = createSignal(1);
    const double = createMemo(() => count() * 2);
    setCount(2);
    expect(double()).toBe(4);
    dispose();
  });
});

describe("signIn", () => {
  test("credentials with redirect: false: ok, the session cookie set, no navigation", async () => {
    const browser = fakeBrowser(credentialsConfig());
    const result = await signIn("credentials", {
      username: "alice",
      password: "wonderland",
      redirect: false,
    });
    expect(result).toEqual({
      ok: true,
      error: undefined,
      code: undefined,
      status: 200,
      url: `${ORIGIN}/start`,
    });
    expect(browser.jar.get("authjs.session-token")).toBeTruthy();
    expect(browser.navigations).toEqual([]);
  });

  test("the protocol: CSRF token first, then a form post with X-Auth-Return-Redirect: 1", async () => {
    const browser = fakeBrowser(credentialsConfig());
    await signIn("credentials", {
      username: "alice",
      password: "wonderland",
      redirect: false,
      callbackUrl: "/after",
    });
    expect(browser.sent.map((s) => `${s.method} ${s.url.pathname}`)).toEqual([
      "GET /api/auth/csrf",
      "POST /api/auth/callback/credentials",
    ]);
    const post = lastPost(browser.sent);
    expect(post.headers.get("x-auth-return-redirect")).toBe("1");
    expect(post.headers.get("content-type")).toBe("application/x-www-form-urlencoded");
    const form = new URLSearchParams(post.body);
    expect(form.get("username")).toBe("alice");
    expect(form.get("password")).toBe("wonderland");
    expect(form.get("callbackUrl")).toBe("/after");
    expect(form.get("csrfToken")).toMatch(/^[0-9a-f]{64}$/);
    expect(form.has("redirect")).toBe(false);
    expect(form.has("basePath")).toBe(false);
  });

  test("a wrong password: error CredentialsSignin with its code, ok false, url null", async () => {
    const browser = fakeBrowser(credentialsConfig());
    const result = await signIn("credentials", {
      username: "alice",
      password: "nope",
      redirect: false,
    });
    expect(result).toEqual({
      ok: false,
      error: "CredentialsSignin",
      code: "credentials",
      status: 200,
      url: null,
    });
    expect(browser.jar.get("authjs.session-token")).toBeUndefined();
  });

  test("redirect (default): navigates to the callback URL the server answers", async () => {
    const browser = fakeBrowser(credentialsConfig());
    const result = await signIn("credentials", {
      username: "alice",
      password: "wonderland",
      redirectTo: "/welcome",
    });
    expect(result).toBeUndefined();
    expect(browser.navigations).toEqual([`${ORIGIN}/welcome`]);
    expect(browser.reload).not.toHaveBeenCalled();
  });

  test("redirectTo wins over callbackUrl; the current page is the default", async () => {
    const browser = fakeBrowser(credentialsConfig());
    await signIn("credentials", { redirect: false, redirectTo: "/a", callbackUrl: "/b" });
    expect(new URLSearchParams(lastPost(browser.sent).body).get("callbackUrl")).toBe("/a");
    await signIn("credentials", { redirect: false });
    expect(new URLSearchParams(lastPost(browser.sent).body).get("callbackUrl")).toBe(
      `${ORIGIN}/start`,
    );
  });

  test("a target that differs only by its hash reloads the page", async () => {
    const browser = fakeBrowser(credentialsConfig(), `${ORIGIN}/start`);
    await signIn("credentials", {
      username: "alice",
      password: "wonderland",
      redirectTo: `${ORIGIN}/start#signed-in`,
    });
    expect(browser.navigations).toEqual([`${ORIGIN}/start#signed-in`]);
    expect(browser.reload).toHaveBeenCalledTimes(1);
  });

  test("no provider: navigates to the sign-in page with the callback URL", async () => {
    const browser = fakeBrowser(credentialsConfig());
    expect(await signIn()).toBeUndefined();
    expect(browser.sent).toEqual([]);
    const target = new URL(browser.navigations[0] ?? "");
    expect(target.pathname).toBe("/api/auth/signin");
    expect(target.searchParams.get("callbackUrl")).toBe(`${ORIGIN}/start`);
  });

  test("another provider posts to signin/<id>, with authorizationParams as the query", async () => {
    const browser = fakeBrowser(credentialsConfig());
    const result = await signIn(
      "github",
      { redirect: false },
      { prompt: "login", login_hint: "alice" },
    );
    const post = lastPost(browser.sent);
    expect(post.url.pathname).toBe("/api/auth/signin/github");
    expect(post.url.searchParams.get("prompt")).toBe("login");
    expect(post.url.searchParams.get("login_hint")).toBe("alice");
    // This server has no such provider: like Auth.js, it sends the browser to its sign-in page.
    expect(result).toMatchObject({ ok: true, error: undefined, url: `${ORIGIN}/api/auth/signin` });
  });

  test("an email provider: the address is posted to signin/<id> and the link is sent", async () => {
    const sendVerificationRequest = vi.fn(async () => {});
    const browser = fakeBrowser(
      credentialsConfig({
        adapter: MemoryAdapter(),
        providers: [Email({ sendVerificationRequest })],
      }),
    );
    const result = await signIn("email", { email: "alice@example.com", redirect: false });
    expect(lastPost(browser.sent).url.pathname).toBe("/api/auth/signin/email");
    expect(new URLSearchParams(lastPost(browser.sent).body).get("email")).toBe("alice@example.com");
    expect(sendVerificationRequest).toHaveBeenCalledTimes(1);
    expect(sendVerificationRequest).toHaveBeenCalledWith(
      expect.objectContaining({ identifier: "alice@example.com" }),
    );
    expect(result.ok).toBe(true);
    expect(new URL(result.url ?? "").pathname).toBe("/api/auth/verify-request");
  });

  test("a custom base path, per call and configured", async () => {
    const browser = fakeBrowser(credentialsConfig({ prefix: "/auth/gate" }));
    const perCall = await signIn("credentials", {
      username: "alice",
      password: "wonderland",
      redirect: false,
      basePath: "/auth/gate",
    });
    expect(perCall.ok).toBe(true);
    expect(lastPost(browser.sent).url.pathname).toBe("/auth/gate/callback/credentials");

    configureClient({ basePath: "/auth/gate/" });
    const configured = await signIn("credentials", {
      username: "alice",
      password: "wonderland",
      redirect: false,
    });
    expect(configured.ok).toBe(true);
    expect(browser.sent.every((s) => s.url.pathname.startsWith("/auth/gate/"))).toBe(true);
  });

  test("the default base path does not reach a server mounted elsewhere", async () => {
    fakeBrowser(credentialsConfig({ prefix: "/auth/gate" }));
    await expect(signIn("credentials", { redirect: false })).rejects.toThrow(/CSRF/);
  });
});

describe("signOut", () => {
  test("posts the CSRF token to /signout and navigates", async () => {
    const browser = fakeBrowser(credentialsConfig());
    await signIn("credentials", { username: "alice", password: "wonderland", redirect: false });
    await signOut({ redirectTo: "/bye" });
    const post = lastPost(browser.sent);
    expect(post.url.pathname).toBe("/api/auth/signout");
    expect(post.headers.get("x-auth-return-redirect")).toBe("1");
    expect(new URLSearchParams(post.body).get("csrfToken")).toMatch(/^[0-9a-f]{64}$/);
    expect(browser.navigations).toEqual([`${ORIGIN}/bye`]);
    expect(browser.jar.get("authjs.session-token")).toBeUndefined();
  });

  test("redirect: false resolves with the URL; a custom base path", async () => {
    const browser = fakeBrowser(credentialsConfig({ prefix: "/gate" }));
    const result = await signOut({ redirect: false, basePath: "/gate" });
    expect(result).toEqual({ url: `${ORIGIN}/start` });
    expect(lastPost(browser.sent).url.pathname).toBe("/gate/signout");
    expect(browser.navigations).toEqual([]);
  });

  test("federated is sent as the form's federated field only when given", async () => {
    const browser = fakeBrowser(credentialsConfig());
    await signOut({ redirect: false, federated: true });
    expect(new URLSearchParams(lastPost(browser.sent).body).get("federated")).toBe("true");
    await signOut({ redirect: false, federated: false });
    expect(new URLSearchParams(lastPost(browser.sent).body).get("federated")).toBe("false");
    await signOut({ redirect: false });
    expect(new URLSearchParams(lastPost(browser.sent).body).has("federated")).toBe(false);
  });
});

describe("a store outage", () => {
  /** JWT sessions with a revocation store that can be cut. */
  function outage() {
    const store = MemoryRevocationStore();
    const state = { down: false };
    const fail = () => Promise.reject(new Error("connection refused"));
    const cut: typeof store = {
      ...store,
      check: (p) => (state.down ? fail() : store.check(p)),
      revokeSession: (p) => (state.down ? fail() : store.revokeSession(p)),
      revokeUser: (p) => (state.down ? fail() : store.revokeUser(p)),
      listSessions: (userId) => (state.down ? fail() : store.listSessions(userId)),
    };
    const browser = fakeBrowser(
      credentialsConfig({ session: { revocation: { store: cut, maxStaleness: 0 } } }),
    );
    return { browser, state };
  }

  test("signOut rejects with the route's error and when to retry, and the browser stays signed in", async () => {
    const { browser, state } = outage();
    await signIn("credentials", { username: "alice", password: "wonderland", redirect: false });
    state.down = true;
    const refused = await signOut({ redirectTo: "/bye" }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AuthRouteError);
    expect(refused).toMatchObject({ status: 503, error: "SessionStoreUnavailable" });
    expect((refused as AuthRouteError).retryAfter).toBeGreaterThan(0);
    expect(browser.navigations).toEqual([]);
    expect(browser.jar.get("authjs.session-token")).toBeDefined();
    state.down = false;
    await signOut({ redirectTo: "/bye" });
    expect(browser.jar.get("authjs.session-token")).toBeUndefined();
  }, 30_000);

  test("listSessions rejects with an AuthRouteError naming SessionStoreUnavailable", async () => {
    const { state } = outage();
    await signIn("credentials", { username: "alice", password: "wonderland", redirect: false });
    state.down = true;
    await expect(listSessions()).rejects.toMatchObject({
      name: "AuthRouteError",
      status: 503,
      error: "SessionStoreUnavailable",
    });
  }, 30_000);
});

describe("createSession", () => {
  /** Creates a session inside a reactive root; returns it and the root's disposer. */
  function inRoot(options?: Parameters<typeof createSession>[0]) {
    return createRoot((dispose) => ({ store: createSession(options), dispose }));
  }

  test("loading first, then unauthenticated when signed out", async () => {
    fakeBrowser(credentialsConfig());
    const { store, dispose } = inRoot();
    expect(store.status()).toBe("loading");
    expect(store.session()).toBeUndefined();
    await vi.waitFor(() => expect(store.status()).toBe("unauthenticated"));
    expect(store.session()).toBeNull();
    dispose();
  });

  test("refetches after a sign-in and a sign-out that stay on the page", async () => {
    fakeBrowser(credentialsConfig());
    const { store, dispose } = inRoot();
    await vi.waitFor(() => expect(store.status()).toBe("unauthenticated"));
    await signIn("credentials", { username: "alice", password: "wonderland", redirect: false });
    await vi.waitFor(() => expect(store.status()).toBe("authenticated"));
    expect(store.session()?.user?.name).toBe("Alice");
    await signOut({ redirect: false });
    await vi.waitFor(() => expect(store.status()).toBe("unauthenticated"));
    dispose();
  });

  test("refetch() resolves with the session and sets it", async () => {
    fakeBrowser(credentialsConfig());
    const { store, dispose } = inRoot();
    await vi.waitFor(() => expect(store.status()).toBe("unauthenticated"));
    // Signed in by another tab: this page learns of it on refetch.
    dispose();
    await signIn("credentials", { username: "alice", password: "wonderland", redirect: false });
    const second = inRoot();
    const session = await second.store.refetch();
    expect(session?.user?.email).toBe("alice@example.com");
    expect(second.store.session()?.user?.email).toBe("alice@example.com");
    second.dispose();
  });

  test("update(data) POSTs { csrfToken, data } as JSON and shows the new session", async () => {
    const config = credentialsConfig({
      callbacks: {
        jwt: ({ token, trigger, session }) =>
          trigger === "update" && typeof session === "object" && session !== null
            ? { ...token, name: (session as { name?: string }).name ?? token.name }
            : token,
      },
    });
    const browser = fakeBrowser(config);
    await signIn("credentials", { username: "alice", password: "wonderland", redirect: false });
    const { store, dispose } = inRoot();
    await vi.waitFor(() => expect(store.status()).toBe("authenticated"));
    const updated = await store.update({ name: "Alice Liddell" });
    expect(updated?.user?.name).toBe("Alice Liddell");
    expect(store.session()?.user?.name).toBe("Alice Liddell");
    const post = lastPost(browser.sent);
    expect(post.url.pathname).toBe("/api/auth/session");
    expect(post.headers.get("content-type")).toBe("application/json");
    const body = JSON.parse(post.body) as { csrfToken: string; data: unknown };
    expect(body.csrfToken).toMatch(/^[0-9a-f]{64}$/);
    expect(body.data).toEqual({ name: "Alice Liddell" });
    dispose();
  });

  test("a custom base path", async () => {
    const browser = fakeBrowser(credentialsConfig({ prefix: "/gate" }));
    const { store, dispose } = inRoot({ basePath: "/gate" });
    await vi.waitFor(() => expect(store.status()).toBe("unauthenticated"));
    expect(browser.sent.map((s) => s.url.pathname)).toEqual(["/gate/session"]);
    dispose();
  });

  test("a failed read ends loading as unauthenticated; refetch() rejects", async () => {
    const browser = fakeBrowser(credentialsConfig({ prefix: "/gate" }));
    const { store, dispose } = inRoot();
    await vi.waitFor(() => expect(store.status()).toBe("unauthenticated"));
    await expect(store.refetch()).rejects.toThrow(/404/);
    expect(browser.sent[0]?.url.pathname).toBe("/api/auth/session");
    dispose();
  });

  test("a disposed session no longer refetches on sign-in", async () => {
    const browser = fakeBrowser(credentialsConfig());
    const { store, dispose } = inRoot();
    await vi.waitFor(() => expect(store.status()).toBe("unauthenticated"));
    dispose();
    const before = browser.sent.filter((s) => s.url.pathname === "/api/auth/session").length;
    await signIn("credentials", { username: "alice", password: "wonderland", redirect: false });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const after = browser.sent.filter((s) => s.url.pathname === "/api/auth/session").length;
    expect(after).toBe(before);
  });
});
