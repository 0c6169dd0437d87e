import { encode } from "@gatehousejs/core/jwt";
import {
  getSession,
  requireSession,
  SolidAuth,
  type SolidAuthConfig,
} from "@gatehousejs/solid-start";
import { provideRequestEvent } from "solid-js/web/storage";
import { afterEach, describe, expect, test, vi } from "vitest";
import {
  appRequest,
  credentialsConfig,
  eventShapes,
  eventV1,
  Jar,
  ORIGIN,
  SECRET,
  SESSION_COOKIE,
} from "./support.js";

const DAY = 86_400_000;

afterEach(() => {
  vi.useRealTimers();
});

/** A session cookie for `token`, sealed `age` milliseconds ago. */
async function sessionCookie(token: Record<string, unknown>, age = 0, secret = SECRET) {
  if (age > 0) vi.useFakeTimers({ now: Date.now() - age, toFake: ["Date"] });
  const value = await encode({ token, secret, salt: SESSION_COOKIE });
  vi.useRealTimers();
  return `${SESSION_COOKIE}=${value}`;
}

function page(cookie?: string, path = "/account"): Request {
  return appRequest(path, undefined, { headers: cookie ? { cookie } : {} });
}

/** Runs `read` outside any request, where solid-js logs that no request event is at hand. */
async function outsideRequest<T>(read: () => Promise<T>): Promise<T> {
  const log = vi.spyOn(console, "log").mockImplementation(() => {});
  try {
    return await read();
  } finally {
    log.mockRestore();
  }
}

/** What the auth route answers for the same cookie. */
async function fromRoute(config: SolidAuthConfig, cookie: string, prefix = "/api/auth") {
  const response = await SolidAuth(config).GET({ request: page(cookie, `${prefix}/session`) });
  return response?.json();
}

describe("getSession", () => {
  test("no cookie: null", async () => {
    expect(await getSession(page(), credentialsConfig())).toBeNull();
  });

  test("a valid cookie: the session, equal to what GET /api/auth/session answers", async () => {
    const config = credentialsConfig();
    const cookie = await sessionCookie({ sub: "u1", name: "Alice", email: "alice@example.com" });
    const session = await getSession(page(cookie), config);
    expect(session?.user).toEqual({ name: "Alice", email: "alice@example.com" });
    expect(JSON.parse(JSON.stringify(session))).toEqual(await fromRoute(config, cookie));
  });

  test("a custom prefix changes nothing about the session it reads", async () => {
    const config = credentialsConfig({ prefix: "/auth" });
    const cookie = await sessionCookie({ sub: "u1", name: "Alice" });
    const session = await getSession(page(cookie), config);
    expect(session?.user?.name).toBe("Alice");
    expect(JSON.parse(JSON.stringify(session))).toEqual(await fromRoute(config, cookie, "/auth"));
  });

  test("the session callback runs, as for the route", async () => {
    const config = credentialsConfig({
      callbacks: { session: ({ session, token }) => ({ ...session, id: token?.sub }) },
    });
    const cookie = await sessionCookie({ sub: "u7", name: "Alice" });
    expect(await getSession(page(cookie), config)).toMatchObject({ id: "u7" });
  });

  test("a wrong cookie gives null", async () => {
    const cookie = await sessionCookie({ sub: "u1" }, 0, "another-secret-another-secret-000000");
    expect(await getSession(page(cookie), credentialsConfig())).toBeNull();
  });

  test.each(eventShapes)(
    "inside a %s request, a re-issued session cookie is appended to the page's response",
    async (_, makeEvent) => {
      const cookie = await sessionCookie({ sub: "u1", name: "Alice" }, 2 * DAY);
      const request = page(cookie);
      const event = makeEvent(request);
      const session = await provideRequestEvent(event, () =>
        getSession(request, credentialsConfig()),
      );
      expect(session?.user?.name).toBe("Alice");
      const set = event.response.headers.getSetCookie();
      expect(set).toHaveLength(1);
      expect(set[0]).toMatch(new RegExp(`^${SESSION_COOKIE}=[^;]+;.*HttpOnly`));
      // The re-issued cookie is a new one that still carries the session.
      const jar = new Jar();
      jar.set(set[0] ?? "");
      expect(jar.get(SESSION_COOKIE)).not.toBe(cookie.slice(SESSION_COOKIE.length + 1));
      const next = page(`${SESSION_COOKIE}=${jar.get(SESSION_COOKIE)}`);
      const again = await outsideRequest(() => getSession(next, credentialsConfig()));
      expect(again?.user?.name).toBe("Alice");
    },
  );

  test("two reads in one request renew the cookie once on its response", async () => {
    const cookie = await sessionCookie({ sub: "u1", name: "Alice" }, 2 * DAY);
    const request = page(cookie);
    const event = eventV1(request);
    await provideRequestEvent(event, async () => {
      await getSession(request, credentialsConfig());
      await requireSession(credentialsConfig());
    });
    expect(event.response.headers.getSetCookie()).toHaveLength(1);
    // Another request's response gets its own.
    const other = eventV1(page(cookie));
    await provideRequestEvent(other, () => getSession(other.request, credentialsConfig()));
    expect(other.response.headers.getSetCookie()).toHaveLength(1);
  });

  test("a fresh session cookie is not re-issued: nothing appended", async () => {
    const cookie = await sessionCookie({ sub: "u1", name: "Alice" });
    const request = page(cookie);
    const event = eventV1(request);
    await provideRequestEvent(event, () => getSession(request, credentialsConfig()));
    expect(event.response.headers.getSetCookie()).toEqual([]);
  });

  test("inside a request, an invalid session cookie's deletion is appended", async () => {
    const cookie = await sessionCookie({ sub: "u1" }, 0, "another-secret-another-secret-000000");
    const request = page(cookie);
    const event = eventV1(request);
    const session = await provideRequestEvent(event, () =>
      getSession(request, credentialsConfig()),
    );
    expect(session).toBeNull();
    const [deletion] = event.response.headers.getSetCookie();
    expect(deletion).toMatch(new RegExp(`^${SESSION_COOKIE}=;`));
  });

  test("outside a request, a re-issued cookie is dropped and the session still read", async () => {
    const cookie = await sessionCookie({ sub: "u1", name: "Alice" }, 2 * DAY);
    const session = await outsideRequest(() => getSession(page(cookie), credentialsConfig()));
    expect(session?.user?.name).toBe("Alice");
  });

  test("a response whose headers are already sent does not fail the read", async () => {
    const cookie = await sessionCookie({ sub: "u1", name: "Alice" }, 2 * DAY);
    const request = page(cookie);
    const append = vi.fn(() => {
      throw new Error("Cannot set headers after they are sent to the client");
    });
    const event = { request, locals: {}, response: { headers: { append } } };
    const session = await provideRequestEvent(event, () =>
      getSession(request, credentialsConfig()),
    );
    expect(session?.user?.name).toBe("Alice");
    expect(append).toHaveBeenCalledTimes(1);
  });
});

describe("requireSession", () => {
  test("without a session: throws a 302 redirect to /", async () => {
    const request = page();
    const thrown = await provideRequestEvent(eventV1(request), () =>
      requireSession(credentialsConfig()).then(
        () => undefined,
        (error: unknown) => error,
      ),
    );
    expect(thrown).toBeInstanceOf(Response);
    expect((thrown as Response).status).toBe(302);
    expect((thrown as Response).headers.get("location")).toBe("/");
  });

  test("a session without a user: redirected too", async () => {
    const config = credentialsConfig({
      callbacks: { session: ({ session }) => ({ expires: session.expires }) },
    });
    const cookie = await sessionCookie({ sub: "u1", name: "Alice" });
    const request = page(cookie);
    // getSession itself answers the user-less session...
    expect(await outsideRequest(() => getSession(request, config))).toEqual({
      expires: expect.any(String),
    });
    const thrown = await provideRequestEvent(eventV1(request), () =>
      requireSession(config).catch((error: unknown) => error),
    );
    expect((thrown as Response).status).toBe(302);
    expect((thrown as Response).headers.get("location")).toBe("/");
  });

  test("a custom redirectTo", async () => {
    const request = page();
    const thrown = await provideRequestEvent(eventShapes[1][1](request), () =>
      requireSession(credentialsConfig(), { redirectTo: "/signin?next=%2Faccount" }).catch(
        (error: unknown) => error,
      ),
    );
    expect((thrown as Response).status).toBe(302);
    expect((thrown as Response).headers.get("location")).toBe("/signin?next=%2Faccount");
  });

  /** What requireSession throws for `request` inside its event, with `options`. */
  async function thrownFor(request: Request, options: Parameters<typeof requireSession>[1]) {
    const thrown = await provideRequestEvent(eventV1(request), () =>
      requireSession(credentialsConfig(), options).catch((error: unknown) => error),
    );
    expect(thrown).toBeInstanceOf(Response);
    expect((thrown as Response).status).toBe(302);
    return (thrown as Response).headers.get("location");
  }

  test("signIn on a server-rendered page: to the sign-in page, back to the page with its query", async () => {
    expect(await thrownFor(page(undefined, "/account?tab=keys"), { signIn: true })).toBe(
      "/api/auth/signin?callbackUrl=%2Faccount%3Ftab%3Dkeys",
    );
    const custom = await provideRequestEvent(eventV1(page(undefined, "/account")), () =>
      requireSession(credentialsConfig({ prefix: "/gate/" }), { signIn: true }).catch(
        (error: unknown) => error,
      ),
    );
    expect((custom as Response).headers.get("location")).toBe(
      "/gate/signin?callbackUrl=%2Faccount",
    );
  });

  test("signIn: the page's path never becomes another origin", async () => {
    for (const path of ["//evil.example/x", "///evil.example", "/%2F%2Fevil.example"]) {
      const location = (await thrownFor(page(undefined, path), { signIn: true })) ?? "";
      expect(location.startsWith("/api/auth/signin?callbackUrl="), path).toBe(true);
      const back = new URL(location, ORIGIN).searchParams.get("callbackUrl") ?? "";
      expect(new URL(back, ORIGIN).origin, path).toBe(ORIGIN);
      expect(back.startsWith("/") && !/^\/[/\\]/.test(back), back).toBe(true);
    }
  });

  test("signIn with a callbackUrl: used when it is a path on this site, ignored otherwise", async () => {
    const request = page(undefined, "/account");
    expect(await thrownFor(request, { signIn: true, callbackUrl: "/billing?x=1" })).toBe(
      "/api/auth/signin?callbackUrl=%2Fbilling%3Fx%3D1",
    );
    for (const callbackUrl of ["https://evil.example/", "//evil.example", "/\\evil.example", "x"]) {
      expect(await thrownFor(request, { signIn: true, callbackUrl }), callbackUrl).toBe(
        "/api/auth/signin?callbackUrl=%2Faccount",
      );
    }
  });

  test("signIn in a server function call: an absolute sign-in URL the router loads, back to the referring page", async () => {
    const call = (referer?: string) =>
      appRequest("/_server", undefined, {
        method: "POST",
        headers: {
          host: "localhost:3000",
          "x-server-id": "src_lib_q.ts#account",
          ...(referer ? { referer } : {}),
        },
      });
    expect(await thrownFor(call(`${ORIGIN}/account?tab=keys`), { signIn: true })).toBe(
      `${ORIGIN}/api/auth/signin?callbackUrl=%2Faccount%3Ftab%3Dkeys`,
    );
    // A referring page of another origin is not a way back; nor is the server function's path.
    expect(await thrownFor(call("https://evil.example/account"), { signIn: true })).toBe(
      `${ORIGIN}/api/auth/signin`,
    );
    expect(await thrownFor(call(), { signIn: true, callbackUrl: "/billing" })).toBe(
      `${ORIGIN}/api/auth/signin?callbackUrl=%2Fbilling`,
    );
  });

  test("signIn with an untrusted host: the sign-in URL's origin comes from the configured url", async () => {
    const config = credentialsConfig({ trustHost: false, url: "https://app.example" });
    const request = new Request("http://attacker.example/_server", {
      method: "POST",
      headers: { "x-server-id": "q#account", host: "attacker.example" },
    });
    const thrown = await provideRequestEvent(eventV1(request), () =>
      requireSession(config, { signIn: true }).catch((error: unknown) => error),
    );
    expect((thrown as Response).headers.get("location")).toBe(
      "https://app.example/api/auth/signin",
    );
  });

  test("redirectTo and signIn together are refused", async () => {
    await expect(
      provideRequestEvent(eventV1(page()), () =>
        requireSession(credentialsConfig(), { signIn: true, redirectTo: "/" }),
      ),
    ).rejects.toThrow(/not both/);
  });

  test.each(eventShapes)(
    "with a session (%s): the session, its user typed as present",
    async (_, makeEvent) => {
      const cookie = await sessionCookie({ sub: "u1", name: "Alice", email: "alice@example.com" });
      const request = page(cookie);
      const session = await provideRequestEvent(makeEvent(request), () =>
        requireSession(credentialsConfig()),
      );
      expect(session.user.name).toBe("Alice");
      expect(session.user.email).toBe("alice@example.com");
    },
  );

  test("re-issued cookies reach the response of the request", async () => {
    const cookie = await sessionCookie({ sub: "u1", name: "Alice" }, 2 * DAY);
    const request = page(cookie);
    const event = eventV1(request);
    await provideRequestEvent(event, () => requireSession(credentialsConfig()));
    expect(event.response.headers.getSetCookie()).toHaveLength(1);
  });

  test("outside a SolidStart request: an Error, not a redirect", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    await expect(requireSession(credentialsConfig())).rejects.toThrow(
      /inside a SolidStart request/,
    );
    log.mockRestore();
  });
});
