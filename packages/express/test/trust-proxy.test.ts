/**
 * Express's `trust proxy` setting decides what the forwarded headers count for: the client
 * address of the rate limits (`req.ip`), and the protocol and host of the URLs and cookies
 * (`req.protocol`, `req.hostname`).
 */
import { gatehouse } from "@gatehousejs/express";
import express from "express";
import { afterEach, describe, expect, test } from "vitest";
import { browser, credentialsConfig, EXPRESS, type Served, serve } from "./support.js";

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

/** An app whose credentials sign-ins are limited to three a minute per client address. */
async function start(trustProxy: boolean | string): Promise<Served> {
  const app = express();
  app.set("trust proxy", trustProxy);
  app.use(
    gatehouse(
      credentialsConfig({
        rateLimit: { credentials: { perClient: { max: 3, windowSeconds: 60 } } },
      }),
    ),
  );
  served = await serve(app);
  return served;
}

/** Wrong-password attempts for distinct accounts, each from `forwardedFor(i)`; their statuses. */
async function attempts(origin: string, forwardedFor: (i: number) => string, count: number) {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    const client = browser(origin);
    const headers = { "x-forwarded-for": forwardedFor(i) };
    const csrfToken = await client.csrf(headers);
    const response = await client.fetch("/api/auth/callback/credentials", {
      method: "POST",
      headers: { ...headers, "x-auth-return-redirect": "1" },
      body: new URLSearchParams({ csrfToken, username: `user${i}`, password: "wrong" }),
    });
    statuses.push(response.status);
  }
  return statuses;
}

describe(EXPRESS, () => {
  describe("the client address of the rate limits", () => {
    test("trust proxy off: X-Forwarded-For is ignored, every attempt is the socket's", async () => {
      const { origin } = await start(false);
      // Outside production the loopback peer counts as the client (docs/rate-limits.md).
      expect(await attempts(origin, (i) => `203.0.113.${i + 1}`, 4)).toEqual([200, 200, 200, 429]);
    });

    test("trust proxy on: X-Forwarded-For names the client, so clients are counted apart", async () => {
      const { origin } = await start("loopback");
      expect(await attempts(origin, (i) => `203.0.113.${i + 1}`, 4)).toEqual([200, 200, 200, 200]);
    });

    test("trust proxy on: one forwarded client is still limited", async () => {
      const { origin } = await start("loopback");
      expect(await attempts(origin, () => "198.51.100.9", 4)).toEqual([200, 200, 200, 429]);
    });

    test("trust proxy naming other proxies: the loopback peer is not trusted, its header ignored", async () => {
      const { origin } = await start("10.0.0.0/8");
      expect(await attempts(origin, (i) => `203.0.113.${i + 1}`, 4)).toEqual([200, 200, 200, 429]);
    });
  });

  describe("the protocol and host", () => {
    const forwarded = {
      "x-forwarded-proto": "https",
      "x-forwarded-host": "auth.example.com",
    };

    test("trust proxy on: X-Forwarded-Proto and -Host make the URLs and the secure cookies", async () => {
      const { origin } = await start(true);
      const client = browser(origin);
      const csrf = await client.fetch("/api/auth/csrf", { headers: forwarded });
      expect(
        csrf.headers.getSetCookie().some((c) => c.startsWith("__Host-authjs.csrf-token=")),
      ).toBe(true);
      const providers = await client.fetch("/api/auth/providers", { headers: forwarded });
      const { credentials } = (await providers.json()) as Record<string, { callbackUrl: string }>;
      expect(credentials?.callbackUrl).toBe(
        "https://auth.example.com/api/auth/callback/credentials",
      );
    });

    test("trust proxy off: the forwarded headers change nothing", async () => {
      const { origin } = await start(false);
      const client = browser(origin);
      const csrf = await client.fetch("/api/auth/csrf", { headers: forwarded });
      expect(csrf.headers.getSetCookie().some((c) => c.startsWith("authjs.csrf-token="))).toBe(
        true,
      );
      const providers = await client.fetch("/api/auth/providers", { headers: forwarded });
      const { credentials } = (await providers.json()) as Record<string, { callbackUrl: string }>;
      expect(credentials?.callbackUrl).toBe(`${origin}/api/auth/callback/credentials`);
    });

    test("a forwarded host with a port keeps its port", async () => {
      const { origin } = await start(true);
      const providers = await browser(origin).fetch("/api/auth/providers", {
        headers: { "x-forwarded-host": "auth.example.com:8443, proxy.internal" },
      });
      const { credentials } = (await providers.json()) as Record<string, { callbackUrl: string }>;
      expect(credentials?.callbackUrl).toBe(
        "http://auth.example.com:8443/api/auth/callback/credentials",
      );
    });
  });
});
