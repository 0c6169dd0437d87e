/**
 * The pinned origin (`config.url` / `AUTH_URL`): every absolute URL Gatehouse builds comes from
 * it, a request for another host is refused, the secure-cookie decision follows it, and the
 * redirect proxy forwards only to origins on its allow-list.
 */
import { Auth } from "@gatehousejs/core";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import Email from "@gatehousejs/core/providers/email";
import Passkey from "@gatehousejs/core/providers/passkey";
import type { AuthConfig, OAuthConfig } from "@gatehousejs/core/types";
import { afterEach, describe, expect, test, vi } from "vitest";
import { credentialsConfig, Jar, recordingLogger, SECRET, send, setCookies } from "./helpers.js";
import { SoftAuthenticator } from "./support/authenticator.js";

const SITE = "https://app.example";

afterEach(() => {
  vi.unstubAllEnvs();
});

function emailConfig(links: string[], overrides: Partial<AuthConfig> = {}): AuthConfig {
  return {
    secret: SECRET,
    url: SITE,
    logger: recordingLogger(),
    adapter: MemoryAdapter(),
    providers: [Email({ sendVerificationRequest: ({ url }) => void links.push(url) })],
    ...overrides,
  };
}

const acme: OAuthConfig = {
  id: "acme",
  name: "Acme",
  type: "oauth",
  clientId: "client-1",
  clientSecret: "client-secret-1",
  authorization: "https://idp.example/authorize",
  token: "https://idp.example/token",
  userinfo: "https://idp.example/userinfo",
  checks: ["state", "pkce"],
};

/** POST /signin/<id> from `origin` with a CSRF token fetched there; returns the response. */
async function signInFrom(
  config: AuthConfig,
  origin: string,
  providerId: string,
  form: Record<string, string> = {},
  headers: Record<string, string> = {},
) {
  const jar = new Jar();
  const csrf = await send(config, jar, "/auth/csrf", { origin, headers });
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const response = await send(config, jar, `/auth/signin/${providerId}`, {
    origin,
    headers,
    form: { csrfToken, ...form },
  });
  return { response, jar };
}

describe("a request for another host", () => {
  test("is answered 400 UntrustedHost and mails nothing", async () => {
    const links: string[] = [];
    const config = emailConfig(links);
    const jar = new Jar();
    const response = await send(config, jar, "/auth/csrf", { origin: "https://evil.example" });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "UntrustedHost" });
    const post = await send(config, jar, "/auth/signin/email", {
      origin: "https://evil.example",
      form: { csrfToken: "x", email: "victim@example.com" },
    });
    expect(post.status).toBe(400);
    expect(links).toEqual([]);
    const logger = config.logger as ReturnType<typeof recordingLogger>;
    expect(logger.error).not.toHaveBeenCalled();
    expect(logger.warn).toHaveBeenCalledWith("client-error", expect.any(Error));
  });

  test("an X-Forwarded-Host naming the site is accepted only with trustHost", async () => {
    const links: string[] = [];
    const headers = { "x-forwarded-host": "app.example" };
    const untrusted = emailConfig(links);
    const refused = await send(untrusted, new Jar(), "/auth/csrf", {
      origin: "http://10.0.0.7:3000",
      headers,
    });
    expect(refused.status).toBe(400);
    const trusted = emailConfig(links, { trustHost: true });
    const { response } = await signInFrom(
      trusted,
      "http://10.0.0.7:3000",
      "email",
      { email: "alice@example.com" },
      headers,
    );
    expect(response.headers.get("location")).toBe(
      `${SITE}/auth/verify-request?provider=email&type=email`,
    );
    expect(links).toHaveLength(1);
    expect(new URL(links[0]!).origin).toBe(SITE);
  });

  test("a forwarded host that is not the site is still refused, even with trustHost", async () => {
    const config = emailConfig([], { trustHost: true });
    const response = await send(config, new Jar(), "/auth/csrf", {
      origin: "https://evil.example",
      headers: { "x-forwarded-host": "evil.example" },
    });
    expect(response.status).toBe(400);
  });
});

describe("every absolute URL comes from the pinned origin", () => {
  test("the magic link, even when the app sees plain HTTP on an internal port", async () => {
    const links: string[] = [];
    const config = emailConfig(links);
    // The proxy speaks http to the app, and keeps the Host header.
    const { response } = await signInFrom(config, "http://app.example", "email", {
      email: "alice@example.com",
    });
    expect(response.status).toBe(302);
    expect(links).toHaveLength(1);
    const link = new URL(links[0]!);
    expect(link.origin).toBe(SITE);
    expect(link.pathname).toBe("/auth/callback/email");
  });

  test("the OAuth redirect_uri", async () => {
    const config: AuthConfig = { secret: SECRET, url: SITE, providers: [acme] };
    const { response } = await signInFrom(config, "http://app.example", "acme");
    const authorize = new URL(response.headers.get("location")!);
    expect(authorize.origin).toBe("https://idp.example");
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${SITE}/auth/callback/acme`);
  });

  test("a path in the URL is the base path unless basePath is set", async () => {
    const config = credentialsConfig({ url: "https://app.example/api/auth" });
    const response = await send(config, new Jar(), "/api/auth/providers", {
      origin: "https://app.example",
    });
    expect(response.status).toBe(200);
    const providers = (await response.json()) as Record<string, { signinUrl: string }>;
    expect(providers.credentials!.signinUrl).toBe(
      "https://app.example/api/auth/signin/credentials",
    );
  });

  test("cookies are Secure and prefixed when the site is https, even over plain HTTP", async () => {
    const config = credentialsConfig({ url: SITE, trustHost: undefined });
    const response = await send(config, new Jar(), "/auth/csrf", { origin: "http://app.example" });
    const cookies = setCookies(response);
    const csrf = cookies.get("__Host-authjs.csrf-token");
    expect(csrf?.raw).toMatch(/; Secure/);
  });
});

describe("configuration from the environment", () => {
  test("Auth() reads AUTH_URL itself: no trustHost needed, other hosts refused", async () => {
    vi.stubEnv("AUTH_URL", SITE);
    vi.stubEnv("AUTH_TRUST_HOST", "");
    const config = credentialsConfig({ trustHost: undefined });
    const ok = await send(config, new Jar(), "/auth/providers", { origin: SITE });
    expect(ok.status).toBe(200);
    const evil = await send(config, new Jar(), "/auth/providers", {
      origin: "https://evil.example",
    });
    expect(evil.status).toBe(400);
  });

  test("AUTH_URL alone does not make the Host header trusted", async () => {
    vi.stubEnv("AUTH_URL", SITE);
    const config = credentialsConfig({ trustHost: undefined });
    const response = await send(config, new Jar(), "/auth/csrf", {
      origin: "https://app.example",
      headers: { "x-forwarded-host": "evil.example" },
    });
    // Host matches the pinned origin; the untrusted forwarded header is ignored, not obeyed.
    expect(response.status).toBe(200);
  });

  test("a config.url that is not an http(s) URL is a configuration error", async () => {
    const config = credentialsConfig({ url: "javascript:alert(1)" });
    const response = await send(config, new Jar(), "/auth/session");
    expect(response.status).toBe(500);
    const logger = config.logger as ReturnType<typeof recordingLogger>;
    expect(logger.error.mock.calls[0]![0]).toMatchObject({ type: "UntrustedHost" });
  });
});

describe("the redirect proxy forwards only to allow-listed origins", () => {
  const PROXY = "https://proxy.example";
  const PREVIEW = "https://pr-42.preview.example";

  /** Starts a sign-in on `origin` (proxied) and returns the state the provider sends back. */
  async function stateFrom(origin: string, url?: string) {
    const config: AuthConfig = {
      secret: SECRET,
      ...(url ? { url } : { trustHost: true }),
      redirectProxyUrl: `${PROXY}/auth`,
      providers: [acme],
    };
    const { response } = await signInFrom(config, origin, "acme");
    const authorize = new URL(response.headers.get("location")!);
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${PROXY}/auth/callback/acme`);
    return authorize.searchParams.get("state")!;
  }

  function proxyConfig(origins?: string[]): AuthConfig {
    return {
      secret: SECRET,
      url: PROXY,
      logger: recordingLogger(),
      redirectProxyUrl: `${PROXY}/auth`,
      ...(origins ? { redirectProxyOrigins: origins } : {}),
      providers: [acme],
    };
  }

  const callback = (config: AuthConfig, state: string) =>
    send(config, new Jar(), `/auth/callback/acme?code=the-code&state=${state}`, { origin: PROXY });

  test("a preview deployment on the list receives the callback", async () => {
    const state = await stateFrom(PREVIEW, PREVIEW);
    const response = await callback(proxyConfig(["https://*.preview.example"]), state);
    expect(response.status).toBe(302);
    const target = new URL(response.headers.get("location")!);
    expect(target.origin).toBe(PREVIEW);
    expect(target.pathname).toBe("/auth/callback/acme");
    expect(target.searchParams.get("code")).toBe("the-code");
  });

  test("an origin named in a valid state but not on the list receives nothing", async () => {
    // A deployment without a pinned origin let a Host header choose the state's origin.
    const state = await stateFrom("https://evil.example");
    for (const origins of [undefined, ["https://*.preview.example"], [PREVIEW]]) {
      const response = await callback(proxyConfig(origins), state);
      const location = response.headers.get("location") ?? "";
      expect(location).not.toContain("evil.example");
      expect(location).not.toContain("the-code");
      expect(new URL(location).origin).toBe(PROXY);
    }
  });

  test("a wildcard matches exactly one label", async () => {
    const state = await stateFrom("https://a.pr-42.preview.example");
    const response = await callback(proxyConfig(["https://*.preview.example"]), state);
    expect(new URL(response.headers.get("location")!).origin).toBe(PROXY);
  });

  test("AUTH_REDIRECT_PROXY_ORIGINS is read by Auth()", async () => {
    vi.stubEnv("AUTH_REDIRECT_PROXY_ORIGINS", ` ${PREVIEW} , https://other.example`);
    const state = await stateFrom(PREVIEW, PREVIEW);
    const response = await callback(proxyConfig(), state);
    expect(new URL(response.headers.get("location")!).origin).toBe(PREVIEW);
  });
});

test("Auth() answers with the request's own origin when nothing is pinned", async () => {
  const config = credentialsConfig();
  const response = await Auth(new Request("http://other.example/auth/providers"), config);
  const providers = (await response.json()) as Record<string, { signinUrl: string }>;
  expect(providers.credentials!.signinUrl).toBe("http://other.example/auth/signin/credentials");
});

describe("the WebAuthn relying party is the pinned origin", () => {
  test("a passkey made on the https site registers while the proxy speaks http to the app", async () => {
    const config: AuthConfig = {
      secret: SECRET,
      url: SITE,
      adapter: MemoryAdapter(),
      experimental: { enableWebAuthn: true },
      providers: [Passkey()],
    };
    const jar = new Jar();
    const behindProxy = "http://app.example";
    const optionsResponse = await send(
      config,
      jar,
      "/auth/webauthn-options/passkey?action=register",
      {
        origin: behindProxy,
      },
    );
    const { options } = (await optionsResponse.json()) as {
      options: Parameters<SoftAuthenticator["register"]>[0];
    };
    expect(options.rp.id).toBe("app.example");
    const device = new SoftAuthenticator();
    // The browser is on the public https site: that is the origin in its client data.
    const done = await send(config, jar, "/auth/callback/passkey", {
      origin: behindProxy,
      form: { action: "register", data: JSON.stringify(device.register(options, SITE)) },
    });
    expect(done.headers.get("location")).toBe(SITE);
    const session = await send(config, jar, "/auth/session", { origin: behindProxy });
    expect(await session.json()).toMatchObject({ user: {} });
  });
});
