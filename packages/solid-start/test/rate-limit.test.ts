/**
 * SolidStart hands core the event's socket address for its rate limits, when the app set no other
 * way to find the client and the peer is a public address.
 */
import { peerAddressOf, SolidAuth, type SolidAuthConfig } from "@gatehousejs/solid-start";
import { afterEach, describe, expect, test, vi } from "vitest";
import {
  appRequest,
  credentialsConfig,
  eventShapes,
  Jar,
  type recordingLogger,
} from "./support.js";

afterEach(() => {
  vi.unstubAllEnvs();
});

type MakeEvent = (request: Request) => { request: Request; clientAddress: string };

/** `count` wrong-password attempts for distinct accounts from one peer; their statuses. */
async function attempts(
  config: SolidAuthConfig,
  makeEvent: MakeEvent,
  peer: string,
  count: number,
) {
  const { GET, POST } = SolidAuth(config);
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    const jar = new Jar();
    const csrf = await GET({ ...makeEvent(appRequest("/api/auth/csrf")), clientAddress: peer });
    jar.apply(csrf!);
    const { csrfToken } = (await csrf!.json()) as { csrfToken: string };
    const request = appRequest("/api/auth/callback/credentials", jar, {
      form: { csrfToken, username: `user${i}`, password: "wrong" },
      headers: { "x-auth-return-redirect": "1", "x-forwarded-for": `192.0.2.${i + 1}` },
    });
    const response = await POST({ ...makeEvent(request), clientAddress: peer });
    statuses.push(response!.status);
  }
  return statuses;
}

describe.each(eventShapes)("rate limits with a %s event", (_, makeEvent) => {
  test("a public socket address is the client: its 31st attempt in a minute is refused", async () => {
    const statuses = await attempts(credentialsConfig(), makeEvent, "198.51.100.7", 31);
    expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true);
    expect(statuses[30]).toBe(429);
  });

  test("a loopback or private peer is a proxy, not a client: no per-client bucket", async () => {
    const statuses = await attempts(credentialsConfig(), makeEvent, "10.0.0.5", 31);
    expect(statuses.every((s) => s === 200)).toBe(true);
  });

  test("a private peer with X-Forwarded-For: one warning that trustedProxies is missing, none for a public peer", async () => {
    const untrusted = (config: SolidAuthConfig) =>
      (config.logger as ReturnType<typeof recordingLogger>).warn.mock.calls.filter(
        ([code]) => code === "untrusted-forwarded-for",
      );
    const behindProxy = credentialsConfig();
    await attempts(behindProxy, makeEvent, "10.0.0.5", 3);
    expect(untrusted(behindProxy)).toHaveLength(1);
    const direct = credentialsConfig();
    await attempts(direct, makeEvent, "198.51.100.7", 3);
    expect(untrusted(direct)).toHaveLength(0);
    const trusted = credentialsConfig({ trustedProxies: 1 });
    await attempts(trusted, makeEvent, "10.0.0.5", 3);
    expect(untrusted(trusted)).toHaveLength(0);
  });

  test("outside production a loopback peer is the person at the keyboard: its 31st attempt is refused", async () => {
    expect(process.env.NODE_ENV).not.toBe("production");
    for (const peer of ["127.0.0.1", "::1", "::ffff:127.0.0.1"]) {
      const statuses = await attempts(credentialsConfig(), makeEvent, peer, 31);
      expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true);
      expect(statuses[30]).toBe(429);
    }
  });

  test("in production a loopback peer is a proxy on the same host: no per-client bucket", async () => {
    vi.stubEnv("NODE_ENV", "production");
    const statuses = await attempts(credentialsConfig(), makeEvent, "127.0.0.1", 31);
    expect(statuses.every((s) => s === 200)).toBe(true);
  });

  test("peerAddressOf as the app's own hook counts any peer, even in production", async () => {
    vi.stubEnv("NODE_ENV", "production");
    const config = credentialsConfig({ clientAddress: peerAddressOf });
    const statuses = await attempts(config, makeEvent, "10.0.0.5", 31);
    expect(statuses[30]).toBe(429);
  });

  test("with trustedProxies set, X-Forwarded-For decides and the socket address is not used", async () => {
    const config = credentialsConfig({ trustedProxies: 1 });
    // Every attempt comes from another address in X-Forwarded-For: none reaches a limit.
    const statuses = await attempts(config, makeEvent, "198.51.100.7", 31);
    expect(statuses.every((s) => s === 200)).toBe(true);
  });
});
