/**
 * The middleware one by one, driven through `app.request()`: what each puts on the context,
 * how `requireAuth()` answers, the prefix, and the mistakes refused when the app is built.
 */
import { encode } from "@gatehousejs/core/jwt";
import {
  type AuthEnv,
  authHandler,
  authSession,
  gatehouse,
  type HonoAuthConfig,
  requireAuth,
  type Session,
  type SessionWithUser,
  type User,
} from "@gatehousejs/hono";
import { getConnInfo } from "@hono/node-server/conninfo";
import { Hono } from "hono";
import { deleteCookie } from "hono/cookie";
import { describe, expect, expectTypeOf, test, vi } from "vitest";
import { credentialsConfig, SECRET, SESSION_COOKIE } from "./support.js";

const ORIGIN = "http://localhost";
const HTML = { accept: "text/html" };

async function sessionCookie(age = 0): Promise<string> {
  if (age > 0) vi.useFakeTimers({ now: Date.now() - age, toFake: ["Date"] });
  const value = await encode({
    token: { sub: "user-1", name: "Alice", email: "alice@example.com" },
    secret: SECRET,
    salt: SESSION_COOKIE,
  });
  vi.useRealTimers();
  return `${SESSION_COOKIE}=${value}`;
}

/** A config whose session callback counts the session reads. */
function countingConfig(overrides: Partial<HonoAuthConfig> = {}) {
  const reads = vi.fn();
  const config = credentialsConfig({
    callbacks: {
      session: ({ session }) => {
        reads();
        return session;
      },
    },
    ...overrides,
  });
  return { config, reads };
}

describe("the context's variables", () => {
  test("are typed: nullable after gatehouse(), non-null behind requireAuth()", async () => {
    const app = new Hono<AuthEnv>();
    app.use(gatehouse(credentialsConfig()));
    app.get("/open", (c) => {
      expectTypeOf(c.get("session")).toEqualTypeOf<Session | null>();
      expectTypeOf(c.get("user")).toEqualTypeOf<User | null>();
      return c.json({ signedIn: c.get("user") !== null });
    });
    app.get("/closed", requireAuth(), (c) => {
      expectTypeOf(c.get("user")).toExtend<User>();
      expectTypeOf(c.get("session")).toExtend<SessionWithUser>();
      expectTypeOf(c.var.user.email).toEqualTypeOf<string | null | undefined>();
      return c.json({ email: c.get("user").email, expires: c.get("session").expires });
    });
    const cookie = await sessionCookie();
    expect(await (await app.request("/open")).json()).toEqual({ signedIn: false });
    const closed = await app.request("/closed", { headers: { cookie } });
    expect(await closed.json()).toEqual({
      email: "alice@example.com",
      expires: expect.any(String),
    });
  });

  test("are typed on an app without an environment, when the routes chain after gatehouse()", async () => {
    const app = new Hono().use(gatehouse(credentialsConfig())).get("/who", (c) => {
      expectTypeOf(c.get("user")).toEqualTypeOf<User | null>();
      return c.text(c.get("user")?.name ?? "guest");
    });
    expect(await (await app.request("/who")).text()).toBe("guest");
    const cookie = await sessionCookie();
    expect(await (await app.request("/who", { headers: { cookie } })).text()).toBe("Alice");
  });

  test("hold the session as GET /api/auth/session answers it, session callback included", async () => {
    const config = credentialsConfig({
      callbacks: { session: ({ session, token }) => ({ ...session, userId: token?.sub }) },
    });
    const app = new Hono<AuthEnv>();
    app.use(gatehouse(config));
    app.get("/", (c) => c.json(c.get("session")));
    const cookie = await sessionCookie();
    const fromContext = await (await app.request("/", { headers: { cookie } })).json();
    const fromRoute = await (
      await app.request("/api/auth/session", { headers: { cookie } })
    ).json();
    expect(fromContext).toEqual(fromRoute);
    expect(fromContext).toMatchObject({ userId: "user-1", user: { name: "Alice" } });
  });

  test("the session is read once per request, and never for the auth routes", async () => {
    const { config, reads } = countingConfig();
    const app = new Hono<AuthEnv>();
    app.use(gatehouse(config));
    app.use("/app/*", authSession(config));
    app.get("/app/x", requireAuth(), (c) => c.text(c.get("user").name ?? ""));
    const cookie = await sessionCookie();
    expect(await (await app.request("/app/x", { headers: { cookie } })).text()).toBe("Alice");
    expect(reads).toHaveBeenCalledTimes(1);
    reads.mockClear();
    await app.request("/api/auth/csrf", { headers: { cookie } });
    expect(reads).not.toHaveBeenCalled();
  });

  test("authHandler and authSession can be mounted apart, the session on some paths only", async () => {
    const { config, reads } = countingConfig();
    const app = new Hono<AuthEnv>();
    app.use(authHandler(config));
    app.use("/app/*", authSession(config));
    app.get("/app/me", (c) => c.json({ user: c.get("user")?.name ?? null }));
    app.get("/static.txt", (c) => c.text("file"));
    const cookie = await sessionCookie();
    expect((await app.request("/api/auth/csrf")).status).toBe(200);
    expect(await (await app.request("/static.txt", { headers: { cookie } })).text()).toBe("file");
    expect(reads).not.toHaveBeenCalled();
    expect(await (await app.request("/app/me", { headers: { cookie } })).json()).toEqual({
      user: "Alice",
    });
  });
});

describe("renewed cookies", () => {
  test("a cookie the handler sets itself wins over the renewal computed before it ran", async () => {
    const app = new Hono<AuthEnv>();
    app.use(gatehouse(credentialsConfig()));
    app.post("/forget-me", (c) => {
      deleteCookie(c, SESSION_COOKIE, { path: "/" });
      return c.text("bye");
    });
    app.get("/raw", () => new Response("raw", { headers: { "x-raw": "1" } }));
    const cookie = await sessionCookie(2 * 86_400_000);
    const forget = await app.request("/forget-me", { method: "POST", headers: { cookie } });
    const set = forget.headers.getSetCookie().filter((l) => l.startsWith(`${SESSION_COOKIE}=`));
    expect(set).toHaveLength(1);
    expect(set[0]).toMatch(/Max-Age=0/);
    // A plain Response from a handler gets the renewal too.
    const raw = await app.request("/raw", { headers: { cookie } });
    expect(raw.headers.get("x-raw")).toBe("1");
    expect(
      raw.headers.getSetCookie().filter((l) => l.startsWith(`${SESSION_COOKIE}=`)),
    ).toHaveLength(1);
  });
});

describe("requireAuth()", () => {
  function protectedApp(...args: Parameters<typeof requireAuth>) {
    const app = new Hono<AuthEnv>();
    app.use(gatehouse(credentialsConfig()));
    app.use("/private/*", requireAuth(...args));
    app.get("/private/*", (c) => c.text("secret"));
    app.post("/private/*", (c) => c.text("done"));
    return app;
  }

  test("auto: a page navigation is redirected, a fetch or a POST gets the 401", async () => {
    const app = protectedApp();
    const page = await app.request("/private/page?x=1", { headers: HTML });
    expect(page.status).toBe(302);
    expect(page.headers.get("location")).toBe(
      "/api/auth/signin?callbackUrl=%2Fprivate%2Fpage%3Fx%3D1",
    );
    expect((await app.request("/private/page")).status).toBe(401);
    expect((await app.request("/private/page", { method: "POST", headers: HTML })).status).toBe(
      401,
    );
  });

  test("signedOut forces either answer", async () => {
    const json = protectedApp({ signedOut: "json" });
    expect((await json.request("/private/page", { headers: HTML })).status).toBe(401);
    const redirect = protectedApp({ signedOut: "redirect" });
    const answer = await redirect.request("/private/api");
    expect(answer.status).toBe(302);
    expect(answer.headers.get("location")).toBe("/api/auth/signin?callbackUrl=%2Fprivate%2Fapi");
  });

  test("redirectTo replaces the sign-in page with a path of the site", async () => {
    const app = protectedApp({ redirectTo: "/welcome" });
    const answer = await app.request("/private/page", { headers: HTML });
    expect(answer.headers.get("location")).toBe("/welcome");
  });

  test.each(["https://evil.example/", "//evil.example", "/\\evil.example", "welcome"])(
    "redirectTo %s is refused when the app is built",
    (redirectTo) => {
      expect(() => requireAuth({ redirectTo })).toThrow(TypeError);
    },
  );

  test("an unknown signedOut is refused when the app is built", () => {
    expect(() => requireAuth({ signedOut: "page" as never })).toThrow(TypeError);
  });

  test("the page to come back to is never another origin", async () => {
    const app = new Hono<AuthEnv>();
    app.use(gatehouse(credentialsConfig()));
    app.use("*", requireAuth({ signedOut: "redirect" }));
    app.get("*", (c) => c.text("secret"));
    for (const path of ["//evil.example/x", "/\\evil.example", "/%2F%2Fevil.example"]) {
      const answer = await app.request(`${ORIGIN}${path}`);
      const location = answer.headers.get("location") ?? "";
      expect(location.startsWith("/api/auth/signin?callbackUrl=")).toBe(true);
      const back = new URL(location, ORIGIN).searchParams.get("callbackUrl") ?? "";
      expect(new URL(back, ORIGIN).origin).toBe(ORIGIN);
    }
  });

  test("a session without a user is not signed in", async () => {
    const config = credentialsConfig({
      callbacks: { session: ({ session }) => ({ expires: session.expires }) },
    });
    const app = new Hono<AuthEnv>();
    app.use(gatehouse(config));
    app.get("/me", requireAuth(), (c) => c.text("secret"));
    const answer = await app.request("/me", { headers: { cookie: await sessionCookie() } });
    expect(answer.status).toBe(401);
  });

  test("without gatehouse() or authSession() before it, the request fails and says why", async () => {
    const app = new Hono();
    const errors: string[] = [];
    app.onError((error, c) => {
      errors.push(error.message);
      return c.text("oops", 500);
    });
    app.get("/me", requireAuth(), (c) => c.text("secret"));
    expect((await app.request("/me")).status).toBe(500);
    expect(errors).toEqual([expect.stringContaining("register one of them before it")]);
  });
});

describe("the prefix", () => {
  test("a custom prefix moves the auth routes and the sign-in redirect", async () => {
    const app = new Hono<AuthEnv>();
    app.use(gatehouse(credentialsConfig({ prefix: "/auth/" })));
    app.get("/me", requireAuth(), (c) => c.text("secret"));
    expect((await app.request("/auth/csrf")).status).toBe(200);
    expect((await app.request("/api/auth/csrf")).status).toBe(404);
    const answer = await app.request("/me", { headers: HTML });
    expect(answer.headers.get("location")).toBe("/auth/signin?callbackUrl=%2Fme");
  });

  test("a prefix at the root is refused when the app is built", () => {
    expect(() => gatehouse(credentialsConfig({ prefix: "/" }))).toThrow(TypeError);
    expect(() => authSession(credentialsConfig({ prefix: "" }))).toThrow(TypeError);
  });
});

describe("getConnInfo of another runtime", () => {
  test("a helper that cannot read this context is ignored: the sign-in still works", async () => {
    // app.request() has no Node socket: the Node helper throws on its context.
    const app = new Hono<AuthEnv>();
    app.use(gatehouse(credentialsConfig(), { getConnInfo }));
    const csrf = await app.request("/api/auth/csrf");
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const cookie = csrf.headers.getSetCookie()[0]?.split(";")[0] ?? "";
    const answer = await app.request("/api/auth/callback/credentials", {
      method: "POST",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrfToken, username: "alice", password: "wonderland" }),
    });
    expect(answer.status).toBe(302);
    expect(answer.headers.getSetCookie().some((l) => l.startsWith(`${SESSION_COOKIE}=`))).toBe(
      true,
    );
  });
});
