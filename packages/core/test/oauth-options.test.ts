/**
 * OAuth provider options through `Auth()` against a real OpenID provider: credentials from the
 * environment, the `customFetch` symbol, the sign-in page's buttons, and the redirect proxy
 * (config, env `AUTH_REDIRECT_PROXY_URL`, per provider).
 */
import { customFetch, setEnvDefaults } from "@gatehousejs/core";
import OIDC, { type OIDCOptions } from "@gatehousejs/core/providers/oidc";
import TikTok from "@gatehousejs/core/providers/tiktok";
import type { AuthConfig, OAuthConfig } from "@gatehousejs/core/types";
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import { Jar, ORIGIN, recordingLogger, SECRET, send, setCookies } from "./helpers.js";
import {
  atProvider,
  beginSignIn,
  deliver,
  expectNoSessionCookie,
  expectOneError,
  sessionOf,
  signInError,
  signInThrough,
} from "./support/oauth-flow.js";
import { type OidcServer, startOidcProvider } from "./support/oidc-server.js";

let op: OidcServer;
beforeAll(async () => {
  op = await startOidcProvider();
});
afterAll(() => op.close());
afterEach(() => {
  vi.unstubAllEnvs();
});

const basic = (options: OIDCOptions = {}): OAuthConfig =>
  OIDC({
    issuer: op.issuer,
    clientId: op.clients.basic.clientId,
    clientSecret: op.clients.basic.clientSecret,
    ...options,
  });

const config = (overrides: Partial<AuthConfig> = {}): AuthConfig => ({
  secret: SECRET,
  trustHost: true,
  logger: recordingLogger(),
  providers: [basic()],
  ...overrides,
});

describe("credentials from the environment", () => {
  test("OIDC({ issuer }) takes its client id and secret from AUTH_OIDC_ID / AUTH_OIDC_SECRET", async () => {
    vi.stubEnv("AUTH_OIDC_ID", op.clients.basic.clientId);
    vi.stubEnv("AUTH_OIDC_SECRET", op.clients.basic.clientSecret!);
    const cfg = config({ providers: [OIDC({ issuer: op.issuer })] });
    const jar = new Jar();
    const url = await beginSignIn(cfg, jar, "oidc");
    expect(url.searchParams.get("client_id")).toBe("basic");
    const done = await deliver(cfg, jar, await atProvider(url));
    expect(done.headers.get("location")).toBe(ORIGIN);
    expect((await sessionOf(cfg, jar))?.user?.email).toBe("user-1@example.com");
  });

  test("OIDC() with nothing but AUTH_OIDC_ID, AUTH_OIDC_SECRET and AUTH_OIDC_ISSUER", async () => {
    vi.stubEnv("AUTH_OIDC_ID", op.clients.post.clientId);
    vi.stubEnv("AUTH_OIDC_SECRET", op.clients.post.clientSecret!);
    vi.stubEnv("AUTH_OIDC_ISSUER", op.issuer);
    const cfg = config({
      providers: [OIDC({ client: { token_endpoint_auth_method: "client_secret_post" } })],
    });
    const jar = new Jar();
    const done = await signInThrough(cfg, jar, "oidc");
    expect(done.headers.get("location")).toBe(ORIGIN);
    expect((await sessionOf(cfg, jar))?.user?.email).toBe("user-1@example.com");
  });
});

test("a provider's customFetch carries its discovery and token requests", async () => {
  const urls: string[] = [];
  const counted: typeof fetch = (input, init) => {
    urls.push(String(input instanceof Request ? input.url : input));
    return fetch(input, init);
  };
  // An explicit wellKnown: discovery of the bare issuer is cached by other tests in this file.
  const wellKnown = `${op.issuer}/.well-known/openid-configuration`;
  const cfg = config({ providers: [basic({ wellKnown, [customFetch]: counted })] });
  const done = await signInThrough(cfg, new Jar(), "oidc");
  expect(done.headers.get("location")).toBe(ORIGIN);
  expect(urls).toEqual([wellKnown, op.tokenEndpoint]);
});

test("the sign-in page has a button per OAuth provider and loads no third-party logo", async () => {
  const plain: OAuthConfig = {
    id: "oauth",
    name: "Plain OAuth",
    type: "oauth",
    authorization: op.authorizationEndpoint,
    token: op.tokenEndpoint,
    userinfo: op.userinfoEndpoint,
    clientId: "basic",
    style: { logo: "https://cdn.example/plain.svg", bg: "#123456" },
  };
  // TikTok's profile type is not assignable to AuthConfig["providers"] (reported library bug).
  const tiktok = TikTok({ clientId: "k", clientSecret: "s" }) as unknown as OAuthConfig;
  const cfg = config({ providers: [basic(), plain, tiktok] });
  const response = await send(cfg, new Jar(), "/auth/signin");
  expect(response.status).toBe(200);
  const html = await response.text();
  for (const [id, name] of [
    ["oidc", "OpenID Connect"],
    ["oauth", "Plain OAuth"],
    ["tiktok", "TikTok"],
  ]) {
    expect(html).toContain(`action="${ORIGIN}/auth/signin/${id}"`);
    expect(html).toContain(`Sign in with ${name}`);
  }
  expect(html.match(/<form /g)).toHaveLength(3);
  const sources = [...html.matchAll(/\ssrc="([^"]*)"/g)].map((m) => m[1]!);
  expect(sources.length).toBeGreaterThan(0);
  for (const src of sources) expect(src).toMatch(/^(data:image\/|\/)/);
  expect(html).not.toContain("cdn.example");
  expect(html).not.toContain("authjs.dev");
  expect(html).toContain("#123456");
});

describe("redirectProxyUrl", () => {
  const PROXY = "http://proxy.localhost:4000";
  const PROXY_AUTH = `${PROXY}/auth`;

  /** Signs in on the deployment through the proxy; returns the deployment's final response. */
  async function throughProxy(deployment: AuthConfig, proxy: AuthConfig) {
    const jar = new Jar();
    const url = await beginSignIn(deployment, jar, "oidc");
    expect(url.searchParams.get("redirect_uri")).toBe(`${PROXY_AUTH}/callback/oidc`);
    // The proxy forces the state check even though the provider only asks for PKCE.
    const state = url.searchParams.get("state");
    expect(state).toBeTruthy();

    const answer = await atProvider(url);
    expect(answer.url.origin).toBe(PROXY);
    const proxyJar = new Jar();
    const hop = await deliver(proxy, proxyJar, answer);
    expect(hop.status).toBe(302);
    const forwarded = new URL(hop.headers.get("location")!);
    expect(forwarded.origin + forwarded.pathname).toBe(`${ORIGIN}/auth/callback/oidc`);
    expect(Object.fromEntries(forwarded.searchParams)).toEqual(
      Object.fromEntries(answer.url.searchParams),
    );
    expect(forwarded.searchParams.get("state")).toBe(state);
    expect(setCookies(hop).size).toBe(0);

    const done = await deliver(deployment, jar, { url: forwarded });
    expect(done.status).toBe(302);
    expect(done.headers.get("location")).toBe(ORIGIN);
    expect((await sessionOf(deployment, jar))?.user?.email).toBe("user-1@example.com");
    return done;
  }

  test("config.redirectProxyUrl: the proxy forwards the callback to the deployment", async () => {
    await throughProxy(
      config({ redirectProxyUrl: PROXY_AUTH }),
      config({ redirectProxyUrl: PROXY_AUTH, redirectProxyOrigins: [ORIGIN] }),
    );
  });

  test("AUTH_REDIRECT_PROXY_URL through setEnvDefaults", async () => {
    vi.stubEnv("AUTH_REDIRECT_PROXY_URL", PROXY_AUTH);
    vi.stubEnv("AUTH_REDIRECT_PROXY_ORIGINS", ORIGIN);
    const deployment = config();
    const proxy = config();
    setEnvDefaults(process.env, deployment);
    setEnvDefaults(process.env, proxy);
    expect(deployment.redirectProxyUrl).toBe(PROXY_AUTH);
    expect(proxy.redirectProxyOrigins).toEqual([ORIGIN]);
    await throughProxy(deployment, proxy);
  });

  test("a provider's own redirectProxyUrl", async () => {
    const provider = () => basic({ redirectProxyUrl: PROXY_AUTH });
    await throughProxy(
      config({ providers: [provider()] }),
      config({ providers: [provider()], redirectProxyOrigins: [ORIGIN] }),
    );
  });

  test("a proxy that cannot read the state (another secret) forwards nothing", async () => {
    const deployment = config({ redirectProxyUrl: PROXY_AUTH });
    const logger = recordingLogger();
    const proxy = config({
      redirectProxyUrl: PROXY_AUTH,
      redirectProxyOrigins: [ORIGIN],
      secret: `${SECRET}-other`,
      logger,
    });
    const answer = await atProvider(await beginSignIn(deployment, new Jar(), "oidc"));
    const hop = await deliver(proxy, new Jar(), answer);
    expect(hop.status).toBe(302);
    expect(hop.headers.get("location")).toBe(signInError("InvalidCheck", PROXY));
    expectNoSessionCookie(hop);
    expectOneError(logger, "InvalidCheck");
  });

  test("a proxy with no allow-list forwards nothing, even for a valid state", async () => {
    const deployment = config({ redirectProxyUrl: PROXY_AUTH });
    const logger = recordingLogger();
    const proxy = config({ redirectProxyUrl: PROXY_AUTH, logger });
    const answer = await atProvider(await beginSignIn(deployment, new Jar(), "oidc"));
    const hop = await deliver(proxy, new Jar(), answer);
    expect(hop.headers.get("location")).toBe(signInError("InvalidCheck", PROXY));
    expectOneError(logger, "InvalidCheck", /redirectProxyOrigins/);
  });
});
