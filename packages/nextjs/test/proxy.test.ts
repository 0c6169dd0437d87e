/**
 * `auth` as the proxy (Next.js 16) or middleware (Next.js 15), and `auth(handler)`: protected
 * paths checked with a verified session, the `authorized` callback, failing closed, and the
 * session renewed on navigation.
 */

import { MemoryRevocationStore } from "@gatehousejs/core/revocation/memory";
import Gatehouse, { type AuthConfig, revokeUserSessions } from "@gatehousejs/nextjs";
import { NextRequest } from "next/server.js";
import { describe, expect, it, vi } from "vitest";
import {
  alice,
  cookieValue,
  credentialsConfig,
  ORIGIN,
  SESSION_COOKIE,
  signedInCookie,
} from "./support.js";

vi.mock("next/headers", async () => (await import("./next-mock.js")).nextHeaders);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function visit(path: string, cookie?: string): NextRequest {
  // As Next.js builds it: the URL from the server's own address, the browser's Host header.
  const headers = new Headers({ host: new URL(ORIGIN).host });
  if (cookie) headers.set("cookie", `${SESSION_COOKIE}=${cookie}`);
  return new NextRequest(`http://127.0.0.1:4321${path}`, { headers });
}

/** Whether the proxy let the request through to its page (`NextResponse.next()`). */
function passedOn(response: Response): boolean {
  return response.headers.get("x-middleware-next") === "1";
}

describe("auth as the proxy", () => {
  it("lets a signed-out visitor through to a page that is not protected", async () => {
    const { auth } = Gatehouse(credentialsConfig({ protect: ["/dashboard"] }));
    const response = await auth(visit("/"));
    expect(passedOn(response)).toBe(true);
    expect(response.headers.getSetCookie()).toEqual([]);
  });

  it("redirects a signed-out visitor of a protected path to the sign-in page with callbackUrl", async () => {
    const { auth } = Gatehouse(credentialsConfig({ protect: ["/dashboard", "/admin/*"] }));
    for (const path of ["/dashboard?tab=keys", "/admin/users/1"]) {
      const response = await auth(visit(path));
      expect(response.status).toBe(302);
      const location = new URL(response.headers.get("location")!);
      expect(location.origin).toBe(ORIGIN);
      expect(location.pathname).toBe("/api/auth/signin");
      expect(location.searchParams.get("callbackUrl")).toBe(path);
    }
    expect(passedOn(await auth(visit("/administrator")))).toBe(true);
  });

  it("answers a prefetch of a protected path with an empty 204, never the sign-in redirect", async () => {
    // Following the redirect would load the sign-in page, which records its callbackUrl in a
    // cookie: a prefetched link would decide where a sign-in elsewhere on the site lands.
    const { auth } = Gatehouse(
      credentialsConfig({ protect: ["/dashboard"], callbacks: { authorized: () => false } }),
    );
    for (const headers of [
      { "next-router-prefetch": "1", rsc: "1" },
      { "sec-purpose": "prefetch" },
      { purpose: "prefetch" },
    ]) {
      const request = visit("/dashboard");
      for (const [name, value] of Object.entries(headers)) request.headers.set(name, value);
      const response = await auth(request);
      expect(response.status).toBe(204);
      expect(response.headers.get("location")).toBeNull();
      expect(response.headers.get("cache-control")).toBe("no-store");
    }
    // The authorized callback's refusal too, on a path protect does not list.
    const other = visit("/settings");
    other.headers.set("next-router-prefetch", "1");
    expect((await auth(other)).status).toBe(204);
    // The click itself still goes to sign in.
    expect((await auth(visit("/dashboard"))).status).toBe(302);
  });

  it("checks the session itself, not the cookie's presence: a forged cookie is refused and cleared", async () => {
    const { auth } = Gatehouse(credentialsConfig({ protect: ["/dashboard"] }));
    const response = await auth(visit("/dashboard", "not-a-session"));
    expect(response.status).toBe(302);
    const cleared = response.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`));
    expect(cleared).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/i);
  });

  it("lets a signed-in visitor through to a protected path", async () => {
    const config = credentialsConfig({ protect: ["/dashboard"] });
    const { auth } = Gatehouse(config);
    const cookie = await signedInCookie(config);
    expect(passedOn(await auth(visit("/dashboard", cookie)))).toBe(true);
  });

  it("refuses a session revoked in the revocation store", async () => {
    const store = MemoryRevocationStore();
    const config = credentialsConfig({
      protect: ["/dashboard"],
      session: { strategy: "jwt", revocation: { store } },
    });
    const { auth } = Gatehouse(config);
    const cookie = await signedInCookie(config);
    expect(passedOn(await auth(visit("/dashboard", cookie)))).toBe(true);
    await revokeUserSessions(config as AuthConfig, alice.id!);
    expect((await auth(visit("/dashboard", cookie))).status).toBe(302);
  });

  it("sends signed-out visitors to redirectTo when the options say so", async () => {
    const { auth } = Gatehouse(
      credentialsConfig({ protect: { paths: ["/dashboard"], redirectTo: "/welcome" } }),
    );
    const response = await auth(visit("/dashboard"));
    expect(response.headers.get("location")).toBe(`${ORIGIN}/welcome`);
  });

  it("asks the authorized callback, with the verified session", async () => {
    const seen: unknown[] = [];
    const config = credentialsConfig({
      callbacks: {
        authorized: ({ request, auth }) => {
          seen.push(auth?.user?.email ?? null);
          const path = new URL(request.url).pathname;
          if (path === "/teapot") return new Response("short and stout", { status: 418 });
          return path.startsWith("/members") ? !!auth : true;
        },
      },
    });
    const { auth } = Gatehouse(config);
    const cookie = await signedInCookie(config);
    const refused = await auth(visit("/members/list"));
    expect(refused.status).toBe(302);
    expect(new URL(refused.headers.get("location")!).searchParams.get("callbackUrl")).toBe(
      "/members/list",
    );
    expect(passedOn(await auth(visit("/members/list", cookie)))).toBe(true);
    expect((await auth(visit("/teapot"))).status).toBe(418);
    expect(seen).toEqual([null, alice.email, null]);
  });

  it("treats an authorized callback that answers nothing as a refusal, also around a handler", async () => {
    const config = credentialsConfig({ callbacks: { authorized: () => undefined } });
    const { auth } = Gatehouse(config);
    const cookie = await signedInCookie(config);
    expect((await auth(visit("/anything", cookie))).status).toBe(302);
    const handler = vi.fn(() => new Response("ran"));
    expect((await auth(handler)(visit("/anything", cookie))).status).toBe(302);
    expect(handler).not.toHaveBeenCalled();
  });

  it("fails closed on a configuration error: a protected path goes to the error page", async () => {
    const config = credentialsConfig({ protect: ["/dashboard"], secret: undefined });
    const saved = process.env.AUTH_SECRET;
    delete process.env.AUTH_SECRET;
    try {
      const { auth } = Gatehouse(config);
      const response = await auth(visit("/dashboard", "anything"));
      expect(response.status).toBe(302);
      expect(response.headers.get("location")).toBe(`${ORIGIN}/api/auth/error?error=Configuration`);
    } finally {
      if (saved !== undefined) process.env.AUTH_SECRET = saved;
    }
  });

  it("fails closed on a configuration error when authorized decides", async () => {
    const authorized = vi.fn(() => true);
    const config = credentialsConfig({ callbacks: { authorized }, secret: undefined });
    const saved = process.env.AUTH_SECRET;
    delete process.env.AUTH_SECRET;
    try {
      const { auth } = Gatehouse(config);
      const response = await auth(visit("/anything", "cookie"));
      expect(response.headers.get("location")).toBe(`${ORIGIN}/api/auth/error?error=Configuration`);
      expect(authorized).not.toHaveBeenCalled();
    } finally {
      if (saved !== undefined) process.env.AUTH_SECRET = saved;
    }
  });

  it("renews a session due for renewal on navigation, and not before updateAge", async () => {
    const config = credentialsConfig({ session: { maxAge: 3600, updateAge: 1 } });
    const { auth } = Gatehouse(config);
    const cookie = await signedInCookie(config);
    const early = await auth(visit("/any-page", cookie));
    expect(cookieValue(early.headers.getSetCookie(), SESSION_COOKIE)).toBeUndefined();
    await sleep(1100);
    const due = await auth(visit("/any-page", cookie));
    expect(passedOn(due)).toBe(true);
    const renewed = cookieValue(due.headers.getSetCookie(), SESSION_COOKIE);
    expect(renewed).toBeDefined();
    expect(renewed).not.toBe(cookie);
  });

  it("never reads or renews the session on the auth route or Next's own files", async () => {
    const config = credentialsConfig({ protect: ["/*"], session: { updateAge: 0 } });
    const { auth } = Gatehouse(config);
    const cookie = await signedInCookie(config);
    for (const path of ["/api/auth/signout", "/_next/static/chunk.js"]) {
      const response = await auth(visit(path, cookie));
      expect(passedOn(response)).toBe(true);
      expect(response.headers.getSetCookie()).toEqual([]);
    }
  });
});

describe("auth(handler)", () => {
  it("hands the handler the verified session as req.auth, and passes on when it returns nothing", async () => {
    const config = credentialsConfig();
    const { auth } = Gatehouse(config);
    const cookie = await signedInCookie(config);
    const seen: unknown[] = [];
    const proxy = auth((req) => {
      seen.push(req.auth?.user?.email ?? null);
    });
    expect(passedOn(await proxy(visit("/", cookie)))).toBe(true);
    expect(passedOn(await proxy(visit("/")))).toBe(true);
    expect(seen).toEqual([alice.email, null]);
  });

  it("wraps a Route Handler, adding a renewed cookie to its response", async () => {
    const config = credentialsConfig({ session: { maxAge: 3600, updateAge: 0 } });
    const { auth } = Gatehouse(config);
    const cookie = await signedInCookie(config);
    const GET = auth((req, context: { params: Promise<{ id: string }> }) =>
      context.params.then(({ id }) => Response.json({ id, email: req.auth?.user?.email ?? null })),
    );
    const response = await GET(visit("/api/things/7", cookie), {
      params: Promise.resolve({ id: "7" }),
    });
    expect(await response.json()).toEqual({ id: "7", email: alice.email });
    expect(cookieValue(response.headers.getSetCookie(), SESSION_COOKIE)).toBeDefined();
  });

  it("runs the protection before the handler", async () => {
    const { auth } = Gatehouse(credentialsConfig({ protect: ["/dashboard"] }));
    const handler = vi.fn(() => new Response("secret"));
    const response = await auth(handler)(visit("/dashboard"));
    expect(response.status).toBe(302);
    expect(handler).not.toHaveBeenCalled();
  });
});
