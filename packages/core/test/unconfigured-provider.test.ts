/**
 * One provider that lacks its settings (a GitHub provider without `AUTH_GITHUB_ID`, an OpenID
 * Connect provider without its issuer) breaks only itself: its error is logged once, its sign-in
 * answers the Configuration error page, and every other route and provider keeps working.
 */
import { Auth } from "@gatehousejs/core";
import Credentials from "@gatehousejs/core/providers/credentials";
import GitHub from "@gatehousejs/core/providers/github";
import OIDC from "@gatehousejs/core/providers/oidc";
import type { AuthConfig } from "@gatehousejs/core/types";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import {
  alice,
  csrfToken,
  Jar,
  ORIGIN,
  recordingLogger,
  SECRET,
  send,
  signInAlice,
} from "./helpers.js";

type Logger = ReturnType<typeof recordingLogger>;

beforeEach(() => {
  vi.stubEnv("AUTH_GITHUB_ID", "");
  vi.stubEnv("AUTH_GITHUB_SECRET", "");
});
afterEach(() => {
  vi.unstubAllEnvs();
});

function config(overrides: Partial<AuthConfig> = {}): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    logger: recordingLogger(),
    providers: [
      GitHub,
      Credentials({
        credentials: { username: {}, password: { type: "password" } },
        authorize: ({ username, password }) =>
          username === "alice" && password === "wonderland" ? { ...alice } : null,
      }),
    ],
    ...overrides,
  };
}

const errorLines = (c: AuthConfig) =>
  (c.logger as Logger).error.mock.calls.map(([e]) => `${e.name}: ${e.message}`);

describe("a GitHub provider without AUTH_GITHUB_ID beside Credentials", () => {
  test("the session, CSRF and provider routes answer, and credentials sign-in works", async () => {
    const c = config();
    const jar = new Jar();
    expect((await send(c, jar, "/auth/session")).status).toBe(200);
    expect((await send(c, jar, "/auth/csrf")).status).toBe(200);
    const providers = await send(c, jar, "/auth/providers");
    expect(providers.status).toBe(200);
    expect(Object.keys((await providers.json()) as object)).toEqual(["github", "credentials"]);
    const signedIn = await signInAlice(c, jar);
    expect(signedIn.status).toBe(302);
    expect(signedIn.headers.get("location")).toBe(ORIGIN);
    const session = (await (await send(c, jar, "/auth/session")).json()) as {
      user?: { email?: string };
    };
    expect(session.user?.email).toBe(alice.email);
  });

  test("the sign-in page renders, GitHub's button included", async () => {
    const page = await send(config(), new Jar(), "/auth/signin");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Sign in with GitHub");
    expect(html).toContain("Sign in with Credentials");
  });

  test("GitHub's sign-in answers the Configuration error page, and nobody is sent to GitHub", async () => {
    const c = config();
    const jar = new Jar();
    const token = await csrfToken(c, jar);
    const response = await send(c, jar, "/auth/signin/github", { form: { csrfToken: token } });
    expect(response.status).toBe(302);
    const location = response.headers.get("location") ?? "";
    expect(location).toBe(`${ORIGIN}/auth/error?error=Configuration`);
    const page = await send(c, jar, new URL(location).pathname + new URL(location).search);
    expect(page.status).toBe(500);
    expect(await page.text()).toContain("The server is not configured correctly.");
    const callback = await send(c, jar, "/auth/callback/github?code=x&state=y");
    expect(callback.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`);
  });

  test("a fetch client gets the error page's URL as JSON", async () => {
    const c = config();
    const jar = new Jar();
    const token = await csrfToken(c, jar);
    const response = await send(c, jar, "/auth/signin/github", {
      form: { csrfToken: token },
      headers: { "X-Auth-Return-Redirect": "1" },
    });
    expect(await response.json()).toEqual({ url: `${ORIGIN}/auth/error?error=Configuration` });
  });

  test("a custom error page receives error=Configuration", async () => {
    const c = config({ pages: { error: "/oops" } });
    const jar = new Jar();
    const token = await csrfToken(c, jar);
    const response = await send(c, jar, "/auth/signin/github", { form: { csrfToken: token } });
    expect(response.headers.get("location")).toBe(`${ORIGIN}/oops?error=Configuration`);
  });

  test("one log line names the missing variable, and later requests do not repeat it", async () => {
    const c = config();
    const jar = new Jar();
    await send(c, jar, "/auth/session");
    expect(errorLines(c)).toEqual([
      'InvalidProvider: Provider "github" has no client id: set AUTH_GITHUB_ID (or clientId in its options)',
    ]);
    const token = await csrfToken(c, jar);
    await send(c, jar, "/auth/signin/github", { form: { csrfToken: token } });
    await send(c, jar, "/auth/signin/github", { form: { csrfToken: token } });
    await send(c, jar, "/auth/callback/github?code=x&state=y");
    await signInAlice(c, jar);
    await send(c, jar, "/auth/providers");
    expect(errorLines(c)).toHaveLength(1);
  });

  test("with AUTH_GITHUB_ID set, GitHub's sign-in goes to GitHub", async () => {
    vi.stubEnv("AUTH_GITHUB_ID", "an-id");
    vi.stubEnv("AUTH_GITHUB_SECRET", "a-secret");
    const c = config();
    const jar = new Jar();
    const token = await csrfToken(c, jar);
    const response = await send(c, jar, "/auth/signin/github", { form: { csrfToken: token } });
    expect(response.headers.get("location")).toMatch(
      /^https:\/\/github\.com\/login\/oauth\/authorize\?/,
    );
    expect(errorLines(c)).toEqual([]);
  });
});

describe("an OpenID Connect provider without its issuer", () => {
  test("breaks only itself, and its error names AUTH_<ID>_ISSUER", async () => {
    vi.stubEnv("AUTH_MY_IDP_ISSUER", "");
    const c = config({
      providers: [
        OIDC({ id: "my-idp", name: "My IdP", clientId: "id", clientSecret: "s" }),
        Credentials({ authorize: () => ({ ...alice }) }),
      ],
    });
    const jar = new Jar();
    expect((await send(c, jar, "/auth/providers")).status).toBe(200);
    const token = await csrfToken(c, jar);
    const response = await send(c, jar, "/auth/signin/my-idp", { form: { csrfToken: token } });
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`);
    const lines = errorLines(c);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^InvalidEndpoints: .*AUTH_MY_IDP_ISSUER/);
  });
});

describe("whole-configuration errors stay whole", () => {
  test("a missing secret still answers every route with the configuration error", async () => {
    const c = config({ secret: undefined });
    vi.stubEnv("AUTH_SECRET", "");
    const response = await Auth(new Request(`${ORIGIN}/auth/session`), c);
    expect(response.status).toBe(500);
    expect(errorLines(c)[0]).toMatch(/^MissingSecret: /);
  });
});
