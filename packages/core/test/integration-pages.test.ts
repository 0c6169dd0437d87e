/**
 * The integration kit's helpers for pages rendered on the server: the session read in-process
 * with renewed cookies forwarded, the sign-in redirect of a page and of a server function call,
 * the CSRF token of a form, and the middleware for protected paths with a framework's own asset
 * roots.
 */
import {
  appendCookies,
  createAuthMiddleware,
  type IntegrationConfig,
  readCsrfToken,
  readSession,
  signInRedirect,
} from "@gatehousejs/core/integration";
import { encode } from "@gatehousejs/core/jwt";
import { describe, expect, test, vi } from "vitest";
import { credentialsConfig, ORIGIN, SECRET } from "./helpers.js";

const SESSION_COOKIE = "authjs.session-token";
const DAY = 86_400_000;

const kitConfig = (overrides: Partial<IntegrationConfig> = {}): IntegrationConfig => {
  const { basePath: _, ...config } = credentialsConfig();
  return { ...config, ...overrides };
};

/** A session cookie for `token`, issued `age` milliseconds ago. */
async function sessionCookie(token: Record<string, unknown>, age = 0) {
  if (age > 0) vi.useFakeTimers({ now: Date.now() - age, toFake: ["Date"] });
  const value = await encode({ token, secret: SECRET, salt: SESSION_COOKIE });
  vi.useRealTimers();
  return `${SESSION_COOKIE}=${value}`;
}

const page = (path: string, headers: Record<string, string> = {}) =>
  new Request(`${ORIGIN}${path}`, { headers });

describe("readSession and appendCookies", () => {
  test("the session of a request, and the renewed cookie handed over once per name", async () => {
    const cookie = await sessionCookie({ sub: "u1", name: "Alice" }, 2 * DAY);
    const config = kitConfig();
    const response = { headers: new Headers() };
    for (let i = 0; i < 2; i++) {
      const session = await readSession(page("/account", { cookie }), config, (cookies) =>
        appendCookies({ response }, cookies),
      );
      expect(session?.user?.name).toBe("Alice");
    }
    const set = response.headers.getSetCookie();
    expect(set).toHaveLength(1);
    expect(set[0]).toMatch(new RegExp(`^${SESSION_COOKIE}=`));
  });

  test("headers already sent: the cookies are dropped, nothing throws", () => {
    const response = {
      headers: {
        append: () => {
          throw new Error("headers already sent");
        },
      },
    };
    expect(() => appendCookies({ response }, ["a=1", "b=2"])).not.toThrow();
    expect(() => appendCookies(undefined, ["a=1"])).not.toThrow();
  });
});

describe("signInRedirect", () => {
  test("a page: a relative sign-in location, back to the page and its query", () => {
    const response = signInRedirect(page("/account?tab=keys"), kitConfig({ prefix: "/gate" }));
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(
      "/gate/signin?callbackUrl=%2Faccount%3Ftab%3Dkeys",
    );
  });

  test("a server function call: absolute, back to the same-site page it came from", () => {
    const request = page("/_server", { referer: `${ORIGIN}/orders?id=7`, host: "localhost:3000" });
    const response = signInRedirect(request, kitConfig(), { serverFunction: true });
    const location = new URL(response.headers.get("location")!);
    expect(location.origin).toBe(ORIGIN);
    expect(location.pathname).toBe("/api/auth/signin");
    expect(location.searchParams.get("callbackUrl")).toBe("/orders?id=7");
  });

  test("a callbackUrl is used when it is a path on this site, ignored otherwise", () => {
    const at = (callbackUrl: string) =>
      signInRedirect(page("/account"), kitConfig(), { callbackUrl }).headers.get("location");
    expect(at("/settings")).toBe("/api/auth/signin?callbackUrl=%2Fsettings");
    expect(at("https://evil.example/x")).toBe("/api/auth/signin?callbackUrl=%2Faccount");
    expect(at("//evil.example")).toBe("/api/auth/signin?callbackUrl=%2Faccount");
  });
});

describe("readCsrfToken", () => {
  test("a browser without the cookie: a token and the cookie for the page's response", async () => {
    const { csrfToken, cookies } = await readCsrfToken(page("/account"), kitConfig());
    expect(csrfToken).toMatch(/^[0-9a-f]{64}$/);
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatch(/^authjs\.csrf-token=/);

    const cookie = cookies[0]!.split(";")[0]!;
    const again = await readCsrfToken(page("/account", { cookie }), kitConfig());
    expect(again).toEqual({ csrfToken, cookies: [] });
  });
});

describe("createAuthMiddleware", () => {
  const framework = { name: "nextAuthMiddleware", assetRoots: ["/_next"] };

  test("the framework's asset roots are never checked; its other paths are", async () => {
    const jwt = vi.fn(({ token }: { token: Record<string, unknown> }) => token);
    const config = kitConfig({ callbacks: { jwt } });
    const handle = createAuthMiddleware(
      config,
      { protectedPaths: ["/*"], signIn: true },
      framework,
    );
    expect(await handle({ request: page("/_next/static/chunk") })).toBeUndefined();
    const refused = await handle({ request: page("/_build/app") });
    expect(refused?.status).toBe(302);
    expect(refused?.headers.get("location")).toBe("/api/auth/signin?callbackUrl=%2F_build%2Fapp");
    const cookie = await sessionCookie({ sub: "u1", name: "Alice" });
    expect(await handle({ request: page("/dashboard", { cookie }) })).toBeUndefined();
    expect(jwt).toHaveBeenCalledTimes(1);
  });

  test("its mistakes are named after the framework's helper", () => {
    expect(() =>
      createAuthMiddleware(
        kitConfig(),
        { protectedPaths: ["/a"], signIn: true, redirectTo: "/" },
        framework,
      ),
    ).toThrow(/^nextAuthMiddleware: set redirectTo or signIn, not both$/);
    expect(() => createAuthMiddleware(kitConfig(), { protectedPaths: ["/*"] }, framework)).toThrow(
      /^nextAuthMiddleware: redirectTo \(\/\) is itself protected/,
    );
  });
});
