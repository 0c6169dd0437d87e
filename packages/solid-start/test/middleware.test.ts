import { encode } from "@gatehousejs/core/jwt";
import { authMiddleware, type SolidAuthConfig } from "@gatehousejs/solid-start";
import { describe, expect, test, vi } from "vitest";
import {
  credentialsConfig,
  eventShapes,
  eventV1,
  ORIGIN,
  SECRET,
  SESSION_COOKIE,
} from "./support.js";

const DAY = 86_400_000;

async function sessionCookie(token: Record<string, unknown>, age = 0) {
  if (age > 0) vi.useFakeTimers({ now: Date.now() - age, toFake: ["Date"] });
  const value = await encode({ token, secret: SECRET, salt: SESSION_COOKIE });
  vi.useRealTimers();
  return `${SESSION_COOKIE}=${value}`;
}

/** A config whose jwt callback counts session checks. */
function spiedConfig(overrides: Partial<SolidAuthConfig> = {}) {
  const jwt = vi.fn(({ token }: { token: Record<string, unknown> }) => token);
  const config = credentialsConfig({ callbacks: { jwt }, ...overrides });
  return { config, jwt };
}

/** A request with a raw path (not normalised by a URL object first). */
function rawRequest(path: string, cookie?: string): Request {
  return new Request(`${ORIGIN}${path}`, { headers: cookie ? { cookie } : {} });
}

describe("authMiddleware", () => {
  test("the auth routes are never checked, even under a catch-all pattern", async () => {
    const { config, jwt } = spiedConfig();
    const onRequest = authMiddleware(config, {
      protectedPaths: ["/*"],
      redirectTo: "/api/auth/signin",
    });
    const cookie = await sessionCookie({ sub: "u1", name: "Alice" });
    for (const path of [
      "/api/auth/session",
      "/api/auth",
      "/API/Auth/signin",
      "/api/auth/callback/x",
    ]) {
      expect(await onRequest(eventV1(rawRequest(path))), path).toBeUndefined();
      expect(await onRequest(eventV1(rawRequest(path, cookie))), path).toBeUndefined();
    }
    expect(jwt).not.toHaveBeenCalled();
  });

  test("the auth routes of a custom prefix are skipped; /api/auth is then an app path", async () => {
    const { config, jwt } = spiedConfig({ prefix: "/gate" });
    const onRequest = authMiddleware(config, {
      protectedPaths: ["/*"],
      redirectTo: "/gate/signin",
    });
    expect(await onRequest(eventV1(rawRequest("/gate/session")))).toBeUndefined();
    expect((await onRequest(eventV1(rawRequest("/api/auth/session"))))?.status).toBe(302);
    expect(jwt).not.toHaveBeenCalled();
  });

  test("a path that leaves the prefix by encoded dot segments is checked", async () => {
    const { config } = spiedConfig();
    const onRequest = authMiddleware(config, { protectedPaths: ["/admin/*"] });
    const response = await onRequest(eventV1(rawRequest("/api/auth/..%2F..%2Fadmin")));
    expect(response?.status).toBe(302);
  });

  test("a path the router matches under a protected pattern is checked, though decoding leaves it", async () => {
    const { config, jwt } = spiedConfig();
    const onRequest = authMiddleware(config, { protectedPaths: ["/admin/*"] });
    // The router splits on "/" only: each of these is the route /admin/:id to it.
    for (const path of [
      "/admin/..%2Fpublic",
      "/admin/..%2fpublic",
      "/admin/..%5Cpublic",
      "/admin/a/..%2F..%2Fpublic",
      "/admin/%2E%2E%2Fpublic",
      "/ADMIN/..%2Fpublic",
      "/admin/..%2F..%2Fapi%2Fauth%2Fsession",
      "/admin/..%2Fpublic.css",
    ]) {
      expect((await onRequest(eventV1(rawRequest(path))))?.status, path).toBe(302);
    }
    // Paths the router renders as no protected page stay open, and unchecked.
    const cookie = await sessionCookie({ sub: "u1", name: "Alice" });
    for (const path of ["/public", "/admin./x", "/admin;x", "/adminx/..%2Fpublic"]) {
      expect(await onRequest(eventV1(rawRequest(path, cookie))), path).toBeUndefined();
    }
    expect(jwt).not.toHaveBeenCalled();
  });

  test("static assets are never checked, under a protected pattern too", async () => {
    const { config, jwt } = spiedConfig();
    const onRequest = authMiddleware(config, {
      protectedPaths: ["/*"],
      redirectTo: "/api/auth/signin",
    });
    const cookie = await sessionCookie({ sub: "u1", name: "Alice" });
    for (const path of [
      "/_build/assets/app.js",
      "/_server/?id=abc",
      "/favicon.ico",
      "/logo.svg",
      "/font.woff2",
      "/app.css",
      "/app.js.map",
    ]) {
      expect(await onRequest(eventV1(rawRequest(path))), path).toBeUndefined();
      expect(await onRequest(eventV1(rawRequest(path, cookie))), path).toBeUndefined();
    }
    expect(jwt).not.toHaveBeenCalled();
  });

  test("paths that are not protected are never checked", async () => {
    const { config, jwt } = spiedConfig();
    const onRequest = authMiddleware(config, { protectedPaths: ["/account", "/admin/*"] });
    const cookie = await sessionCookie({ sub: "u1", name: "Alice" });
    for (const path of ["/", "/about", "/accounts", "/administrator", "/account/x"]) {
      expect(await onRequest(eventV1(rawRequest(path, cookie))), path).toBeUndefined();
    }
    expect(jwt).not.toHaveBeenCalled();
  });

  test.each(eventShapes)("signed out on a protected path (%s): 302 to /", async (_, makeEvent) => {
    const onRequest = authMiddleware(credentialsConfig(), {
      protectedPaths: ["/account", "/admin/*"],
    });
    for (const path of ["/account", "/account/", "/admin", "/admin/users", "/Admin", "//admin"]) {
      const response = await onRequest(makeEvent(rawRequest(path)));
      expect(response?.status, path).toBe(302);
      expect(response?.headers.get("location"), path).toBe("/");
    }
  });

  test("redirectTo sets the target", async () => {
    const onRequest = authMiddleware(credentialsConfig(), {
      protectedPaths: ["/account"],
      redirectTo: "/signin?from=account",
    });
    const response = await onRequest(eventV1(rawRequest("/account")));
    expect(response?.headers.get("location")).toBe("/signin?from=account");
  });

  test("signIn: to the sign-in page with the requested path and query as callbackUrl", async () => {
    const onRequest = authMiddleware(credentialsConfig(), {
      protectedPaths: ["/admin/*"],
      signIn: true,
    });
    const response = await onRequest(eventV1(rawRequest("/admin/users?page=2")));
    expect(response?.status).toBe(302);
    expect(response?.headers.get("location")).toBe(
      "/api/auth/signin?callbackUrl=%2Fadmin%2Fusers%3Fpage%3D2",
    );
    const custom = authMiddleware(credentialsConfig({ prefix: "/gate" }), {
      protectedPaths: ["/*"],
      signIn: true,
    });
    expect((await custom(eventV1(rawRequest("/x"))))?.headers.get("location")).toBe(
      "/gate/signin?callbackUrl=%2Fx",
    );
  });

  test("signIn: a path that starts with // comes back as a path, never a host", async () => {
    const onRequest = authMiddleware(credentialsConfig(), { protectedPaths: ["/*"], signIn: true });
    const response = await onRequest(eventV1(rawRequest("//evil.example/admin")));
    const location = response?.headers.get("location") ?? "";
    const back = new URL(location, ORIGIN).searchParams.get("callbackUrl");
    expect(back).toBe("/evil.example/admin");
  });

  test("redirectTo and signIn together are refused up front", () => {
    expect(() =>
      authMiddleware(credentialsConfig(), {
        protectedPaths: ["/account"],
        redirectTo: "/",
        signIn: true,
      }),
    ).toThrow(/not both/);
  });

  test.each(eventShapes)("signed in (%s): passes, the check ran once", async (_, makeEvent) => {
    const { config, jwt } = spiedConfig();
    const onRequest = authMiddleware(config, { protectedPaths: ["/admin/*"] });
    const cookie = await sessionCookie({ sub: "u1", name: "Alice" });
    const event = makeEvent(rawRequest("/admin/users", cookie));
    expect(await onRequest(event)).toBeUndefined();
    expect(jwt).toHaveBeenCalledTimes(1);
    expect(event.response.headers.getSetCookie()).toEqual([]);
  });

  test("signed in with a cookie due for renewal: the renewed cookie goes on the page's response", async () => {
    const onRequest = authMiddleware(credentialsConfig(), { protectedPaths: ["/account"] });
    const cookie = await sessionCookie({ sub: "u1", name: "Alice" }, 2 * DAY);
    const event = eventV1(rawRequest("/account", cookie));
    expect(await onRequest(event)).toBeUndefined();
    const [renewed] = event.response.headers.getSetCookie();
    expect(renewed).toMatch(new RegExp(`^${SESSION_COOKIE}=[^;]+;`));
  });

  test("a session without a user is redirected", async () => {
    const config = credentialsConfig({
      callbacks: { session: ({ session }) => ({ expires: session.expires }) },
    });
    const onRequest = authMiddleware(config, { protectedPaths: ["/account"] });
    const cookie = await sessionCookie({ sub: "u1", name: "Alice" });
    expect((await onRequest(eventV1(rawRequest("/account", cookie))))?.status).toBe(302);
  });

  test("an invalid session cookie: redirected, and its deletion rides on the redirect", async () => {
    const onRequest = authMiddleware(credentialsConfig(), { protectedPaths: ["/account"] });
    const event = eventV1(rawRequest("/account", `${SESSION_COOKIE}=not-a-token`));
    const response = await onRequest(event);
    expect(response?.status).toBe(302);
    const [deletion] = response?.headers.getSetCookie() ?? [];
    expect(deletion).toMatch(new RegExp(`^${SESSION_COOKIE}=;`));
    expect(event.response.headers.getSetCookie()).toEqual([]);
  });

  test("a redirect target that is itself protected is refused up front (it would loop)", () => {
    expect(() =>
      authMiddleware(credentialsConfig(), { protectedPaths: ["/*"], redirectTo: "/login" }),
    ).toThrow(/loop/);
    expect(() =>
      authMiddleware(credentialsConfig(), {
        protectedPaths: ["/account"],
        redirectTo: "/Account?x=1",
      }),
    ).toThrow(/loop/);
    expect(() =>
      authMiddleware(credentialsConfig(), { protectedPaths: ["/account"], redirectTo: "/" }),
    ).not.toThrow();
  });
});
