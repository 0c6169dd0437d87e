/**
 * The integration kit's auth route and its configuration, driven as a framework other than
 * SolidStart would: its own event shape, the socket address handed over by a typed function.
 */
import {
  createAuthRoute,
  type IntegrationConfig,
  peerAddressOf,
  resolveIntegrationConfig,
} from "@gatehousejs/core/integration";
import { afterEach, describe, expect, test, vi } from "vitest";
import { credentialsConfig, Jar, ORIGIN } from "./helpers.js";

afterEach(() => {
  vi.unstubAllEnvs();
});

/** A framework's event: its request, and the socket address under a name of its own. */
interface PeerEvent {
  request: Request;
  remote: { address?: string };
}

const kitConfig = (overrides: Partial<IntegrationConfig> = {}): IntegrationConfig => {
  const { basePath: _, ...config } = credentialsConfig();
  return { ...config, ...overrides };
};

/** `count` wrong-password attempts for distinct accounts through `handle`; their statuses. */
async function attempts(
  handle: (event: PeerEvent) => Promise<Response | undefined>,
  address: string,
  count: number,
) {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    const jar = new Jar();
    const csrf = jar.take((await handle(event("/api/auth/csrf", address)))!);
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const request = new Request(`${ORIGIN}/api/auth/callback/credentials`, {
      method: "POST",
      headers: {
        cookie: jar.header(),
        "content-type": "application/x-www-form-urlencoded",
        "x-auth-return-redirect": "1",
      },
      body: new URLSearchParams({ csrfToken, username: `user${i}`, password: "wrong" }),
    });
    statuses.push((await handle({ request, remote: { address } }))!.status);
  }
  return statuses;
}

function event(path: string, address?: string): PeerEvent {
  return { request: new Request(`${ORIGIN}${path}`), remote: { address } };
}

describe("createAuthRoute", () => {
  test("the address the integration reads from its event reaches the rate limits", async () => {
    const handle = createAuthRoute<PeerEvent>(kitConfig(), {
      clientAddress: (e) => e.remote.address,
    });
    const statuses = await attempts(handle, "198.51.100.7", 31);
    expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true);
    expect(statuses[30]).toBe(429);
  });

  test("without the function, no address: the per-client limit never counts", async () => {
    const handle = createAuthRoute<PeerEvent>(kitConfig());
    const statuses = await attempts(handle, "198.51.100.7", 31);
    expect(statuses.every((s) => s === 200)).toBe(true);
  });

  test("peerAddressOf gives an app's own hook the handed-over address, private ones too", async () => {
    const seen: (string | null)[] = [];
    const config = kitConfig({
      clientAddress: (request) => {
        const address = peerAddressOf(request);
        seen.push(address);
        return address;
      },
    });
    const handle = createAuthRoute<PeerEvent>(config, { clientAddress: (e) => e.remote.address });
    const statuses = await attempts(handle, "10.0.0.5", 31);
    expect(statuses[30]).toBe(429);
    expect(new Set(seen)).toEqual(new Set(["10.0.0.5"]));
    expect(peerAddressOf(new Request(ORIGIN))).toBeNull();
  });

  test("a path outside the prefix resolves to undefined; the prefix itself is answered", async () => {
    const handle = createAuthRoute<PeerEvent>(kitConfig({ prefix: "/auth/" }));
    expect(await handle(event("/api/auth/session"))).toBeUndefined();
    expect(await handle(event("/authx/session"))).toBeUndefined();
    expect((await handle(event("/auth/session")))?.status).toBe(200);
    expect((await handle(event("/auth")))?.status).toBe(400);
  });

  test("the site root as prefix is refused where the route is declared", () => {
    expect(() => createAuthRoute(kitConfig({ prefix: "/" }))).toThrow(TypeError);
    expect(() => createAuthRoute(kitConfig({ prefix: " " }))).toThrow(/prefix/);
  });
});

describe("resolveIntegrationConfig", () => {
  test("built once per configuration object: the prefix is the base path, raw is dropped", () => {
    const config = { ...kitConfig({ prefix: "gate/" }), raw: Symbol("raw") } as IntegrationConfig;
    const resolved = resolveIntegrationConfig(config);
    expect(resolved.prefix).toBe("/gate");
    expect(resolved.core.basePath).toBe("/gate");
    expect(resolved.core).not.toHaveProperty("raw");
    expect(resolved.core).not.toHaveProperty("prefix");
    expect(resolveIntegrationConfig(config)).toBe(resolved);
  });

  test("trustHost: true outside production, AUTH_TRUST_HOST wins, in production left to core", () => {
    const { trustHost: _, ...base } = kitConfig();
    expect(resolveIntegrationConfig({ ...base }).core.trustHost).toBe(true);
    vi.stubEnv("AUTH_TRUST_HOST", "false");
    expect(resolveIntegrationConfig({ ...base }).core.trustHost).toBe(false);
    vi.stubEnv("AUTH_TRUST_HOST", "");
    vi.stubEnv("NODE_ENV", "production");
    vi.stubEnv("VERCEL", "");
    vi.stubEnv("CF_PAGES", "");
    expect(resolveIntegrationConfig({ ...base }).core.trustHost).toBeFalsy();
  });

  test("the socket address is the fallback hook only when the app gave no other way", () => {
    expect(resolveIntegrationConfig(kitConfig()).core.clientAddress).toBeTypeOf("function");
    expect(resolveIntegrationConfig(kitConfig({ trustedProxies: 1 })).core.clientAddress).toBe(
      undefined,
    );
    vi.stubEnv("AUTH_TRUSTED_PROXIES", "1");
    expect(resolveIntegrationConfig(kitConfig()).core.clientAddress).toBeUndefined();
  });

  test("the secret comes from AUTH_SECRET when the config has none", () => {
    const { secret: _, ...config } = kitConfig();
    vi.stubEnv("AUTH_SECRET", "integration-secret-from-the-environment-0123");
    expect(resolveIntegrationConfig(config).core.secret).toBe(
      "integration-secret-from-the-environment-0123",
    );
  });
});
