/**
 * The credentials rate limit counts per client, and the client is the socket's peer that
 * Hono's connection-info helper reports: two source addresses are counted apart, and a forged
 * `X-Forwarded-For` moves nobody to another bucket unless the app trusts its proxies.
 */
import { peerAddressOf } from "@gatehousejs/hono";
import { afterEach, describe, expect, test, vi } from "vitest";
import {
  credentialsConfig,
  csrfToken,
  Jar,
  listen,
  type Served,
  send,
  testApp,
} from "./support.js";

const servers: Served[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serveWith(...args: Parameters<typeof testApp>): Promise<Served> {
  const served = await listen(testApp(...args));
  servers.push(served);
  return served;
}

/**
 * `count` wrong-password attempts, each for another account, from `localAddress`; each with
 * another `X-Forwarded-For` when `forwarded` is set. The statuses, in order.
 */
async function attempts(
  served: Served,
  localAddress: string,
  count: number,
  forwarded = false,
): Promise<number[]> {
  const jar = new Jar();
  const token = await csrfToken(served, jar, localAddress);
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    const answer = await send(served, "/api/auth/callback/credentials", {
      jar,
      localAddress,
      form: { csrfToken: token, username: `user${i}`, password: "wrong" },
      headers: {
        "x-auth-return-redirect": "1",
        ...(forwarded && { "x-forwarded-for": `203.0.113.${i + 1}` }),
      },
    });
    statuses.push(answer.status);
  }
  return statuses;
}

describe("the credentials rate limit, keyed on the socket address from getConnInfo", () => {
  test("the 31st attempt in a minute from 127.0.0.1 is refused; 127.0.0.2 is counted apart", async () => {
    const served = await serveWith(credentialsConfig());
    const first = await attempts(served, "127.0.0.1", 31);
    expect(first.slice(0, 30)).toEqual(Array(30).fill(200));
    expect(first[30]).toBe(429);
    // Another client is not locked out by the first one.
    expect(await attempts(served, "127.0.0.2", 3)).toEqual([200, 200, 200]);
    // And the first is still refused.
    expect(await attempts(served, "127.0.0.1", 1)).toEqual([429]);
  });

  test("the 429 says when to try again", async () => {
    const served = await serveWith(credentialsConfig());
    await attempts(served, "127.0.0.1", 30);
    const jar = new Jar();
    const token = await csrfToken(served, jar);
    const answer = await send(served, "/api/auth/callback/credentials", {
      jar,
      form: { csrfToken: token, username: "someone", password: "wrong" },
      headers: { "x-auth-return-redirect": "1" },
    });
    expect(answer.status).toBe(429);
    expect(Number(answer.header("retry-after"))).toBeGreaterThan(0);
    expect(answer.json()).toMatchObject({ error: "RateLimited" });
  });

  test("a forged X-Forwarded-For does not escape the limit: forwarded headers are not trusted by default", async () => {
    const served = await serveWith(credentialsConfig());
    const statuses = await attempts(served, "127.0.0.1", 31, true);
    expect(statuses[30]).toBe(429);
  });

  test("with trustedProxies set, X-Forwarded-For names the client and the socket is the proxy", async () => {
    const served = await serveWith(credentialsConfig({ trustedProxies: 1 }));
    // Every attempt names another client: none of them reaches its limit.
    expect((await attempts(served, "127.0.0.1", 31, true)).every((s) => s === 200)).toBe(true);
  });

  test("without getConnInfo the limit knows no client, and no address is made up", async () => {
    const served = await serveWith(credentialsConfig(), {});
    expect((await attempts(served, "127.0.0.1", 31)).every((s) => s === 200)).toBe(true);
  });

  test("in production a loopback peer is a proxy on the same host, not a client", async () => {
    vi.stubEnv("NODE_ENV", "production");
    const served = await serveWith(credentialsConfig({ trustHost: true }));
    expect((await attempts(served, "127.0.0.1", 31)).every((s) => s === 200)).toBe(true);
  });

  test("clientAddress: peerAddressOf counts the socket's peer whatever it is, in production too", async () => {
    vi.stubEnv("NODE_ENV", "production");
    const served = await serveWith(
      credentialsConfig({ trustHost: true, clientAddress: peerAddressOf }),
    );
    const statuses = await attempts(served, "127.0.0.2", 31);
    expect(statuses[30]).toBe(429);
    expect(await attempts(served, "127.0.0.3", 1)).toEqual([200]);
  });
});
