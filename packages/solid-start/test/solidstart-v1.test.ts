/**
 * SolidStart 1.x's own middleware machinery, not a look-alike: `createMiddleware` from
 * `@solidjs/start/middleware` on a real h3 app (vinxi/http), so events are SolidStart's
 * `FetchEvent`s and their response headers its proxy onto the h3 response.
 */
import { encode } from "@gatehousejs/core/jwt";
import { authMiddleware, getSession, SolidAuth } from "@gatehousejs/solid-start";
import { createMiddleware } from "@solidjs/start/middleware";
import type { FetchEvent } from "@solidjs/start/server";
import { provideRequestEvent } from "solid-js/web/storage";
import { createApp, eventHandler, toWebHandler } from "vinxi/http";
import { describe, expect, test, vi } from "vitest";
import { credentialsConfig, ORIGIN, SECRET, SESSION_COOKIE } from "./support.js";

const DAY = 86_400_000;

async function sessionCookie(age = 0) {
  if (age > 0) vi.useFakeTimers({ now: Date.now() - age, toFake: ["Date"] });
  const value = await encode({
    token: { sub: "u1", name: "Alice" },
    secret: SECRET,
    salt: SESSION_COOKIE,
  });
  vi.useRealTimers();
  return `${SESSION_COOKIE}=${value}`;
}

/**
 * An app as SolidStart 1.x runs one: the middleware's onRequest before a page handler that
 * reads the session the way a server function does (inside the request's event).
 */
function app() {
  const config = credentialsConfig();
  let fetchEvent: FetchEvent | undefined;
  const middleware = createMiddleware({
    onRequest: [
      (event) => {
        fetchEvent = event;
      },
      authMiddleware(config, { protectedPaths: ["/account"] }),
    ],
  });
  const page = eventHandler({
    onRequest: middleware.onRequest,
    handler: async () => {
      const event = fetchEvent!;
      const session = await provideRequestEvent(event, () => getSession(event.request, config));
      return `page of ${session?.user?.name ?? "nobody"}`;
    },
  });
  return toWebHandler(createApp().use(page));
}

describe("authMiddleware and getSession inside SolidStart 1.x (vinxi/h3)", () => {
  test("signed out on a protected path: the middleware's redirect is the answer", async () => {
    const response = await app()(new Request(`${ORIGIN}/account`));
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/");
  });

  test("signed in: the page renders", async () => {
    const cookie = await sessionCookie();
    const response = await app()(new Request(`${ORIGIN}/account`, { headers: { cookie } }));
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("page of Alice");
    expect(response.headers.getSetCookie()).toEqual([]);
  });

  test("a renewed cookie reaches the h3 response through SolidStart's header proxy", async () => {
    const cookie = await sessionCookie(2 * DAY);
    // Not protected: only the page's getSession renews the cookie.
    const page = await app()(new Request(`${ORIGIN}/home`, { headers: { cookie } }));
    expect(await page.text()).toBe("page of Alice");
    const [renewed] = page.headers.getSetCookie();
    expect(renewed).toMatch(new RegExp(`^${SESSION_COOKIE}=[^;]+;.*HttpOnly`));
    // Protected: the middleware renews it; the page's read of the same request adds no copy.
    const account = await app()(new Request(`${ORIGIN}/account`, { headers: { cookie } }));
    expect(account.status).toBe(200);
    expect(await account.text()).toBe("page of Alice");
    const once = account.headers.getSetCookie();
    expect(once).toHaveLength(1);
    expect(once[0]).toMatch(new RegExp(`^${SESSION_COOKIE}=[^;]+;`));
  });
});

describe("SolidAuth with SolidStart 1.x's own FetchEvent", () => {
  /** The catch-all API route, handed the FetchEvent SolidStart builds from the h3 event. */
  function route() {
    const { GET, POST } = SolidAuth(credentialsConfig());
    let fetchEvent: FetchEvent | undefined;
    const capture = createMiddleware({
      onRequest: (event) => {
        fetchEvent = event;
      },
    });
    const handler = eventHandler({
      onRequest: capture.onRequest,
      handler: async (h3Event) => {
        const answer = await (h3Event.method === "POST" ? POST : GET)(fetchEvent!);
        return answer ?? "fell through";
      },
    });
    return toWebHandler(createApp().use(handler));
  }

  test("actions under the prefix are answered, other paths fall through", async () => {
    const csrf = await route()(new Request(`${ORIGIN}/api/auth/csrf`));
    expect(csrf.status).toBe(200);
    expect(await csrf.json()).toEqual({ csrfToken: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(csrf.headers.getSetCookie()[0]).toMatch(/^authjs\.csrf-token=/);
    const other = await route()(new Request(`${ORIGIN}/about`));
    expect(await other.text()).toBe("fell through");
  });
});
