/**
 * A browser for the device-cookie tests on the real stores: it keeps the cookies `Auth()` sets
 * and sends them back, and signs in to the rate-limit test app (alice / wonderland) with the
 * client address unknown (no `clientAddress` hook, no `trustedProxies`).
 */
import { randomUUID } from "node:crypto";
import { Auth } from "@gatehousejs/core";
import type { AuthConfig, RateLimitOptions, RateLimitStore } from "@gatehousejs/core/types";
import { expect, test } from "vitest";
import { signInConfig } from "./rate-limit-signin.js";

const ORIGIN = "http://localhost:3000";

/** The test app with the client address unknown: the default for a plain `Auth()`. */
export function unknownAddressConfig(
  secret: string,
  store: RateLimitStore,
  limits: Omit<RateLimitOptions, "store">,
): AuthConfig {
  const { clientAddress: _hook, ...config } = signInConfig(secret, store, limits);
  return config;
}

/** A browser: its cookies, name to value. */
export class Browser {
  readonly cookies = new Map<string, string>();

  #keep(response: Response): Response {
    for (const raw of response.headers.getSetCookie()) {
      const pair = raw.split(";")[0] ?? "";
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq);
      if (/Max-Age=0/i.test(raw)) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(eq + 1));
    }
    return response;
  }

  #header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  /** One credentials sign-in as alice with `password`, as `fetch` sends it; the status. */
  async signIn(config: AuthConfig, password: string): Promise<number> {
    const csrf = this.#keep(
      await Auth(
        new Request(`${ORIGIN}/auth/csrf`, { headers: { cookie: this.#header() } }),
        config,
      ),
    );
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const response = await Auth(
      new Request(`${ORIGIN}/auth/callback/credentials`, {
        method: "POST",
        headers: {
          cookie: this.#header(),
          "content-type": "application/x-www-form-urlencoded",
          "x-auth-return-redirect": "1",
        },
        body: new URLSearchParams({ csrfToken, username: "alice", password }),
      }),
      config,
    );
    this.#keep(response);
    return response.status;
  }
}

/**
 * Registers the device-cookie case for the store that `store()` returns once the block is open.
 * A fresh secret per run keeps its counters apart from every other case's (the keys are hashed
 * with it); nothing here needs a clock: the waits are a minute and ten minutes long.
 */
export function deviceCookieCases(store: () => RateLimitStore): void {
  test("address unknown: strangers keep the account's backoff armed, the user's browser with its device cookie still signs in", async () => {
    const limits = {
      email: false,
      webauthn: false,
      oauth: false,
      credentials: { failures: { freeAttempts: 1, baseSeconds: 600, maxSeconds: 600 } },
    } as const;
    const config = unknownAddressConfig(`device-${randomUUID()}`, store(), limits);
    const browser = new Browser();
    expect(await browser.signIn(config, "wonderland")).toBe(200);
    expect([...browser.cookies.keys()]).toContain("gatehouse.device");

    // Unknown clients share the account's backoff, ten times as generous (10 free failures),
    // with waits of a minute at most: the eleventh failure arms it.
    const strangers: number[] = [];
    for (let i = 0; i < 12; i++) strangers.push(await new Browser().signIn(config, "guess"));
    expect(strangers.slice(0, 11).every((status) => status === 401 || status === 200)).toBe(true);
    expect(strangers[11]).toBe(429);
    // A browser that never signed in shares the armed backoff, even with the right password.
    expect(await new Browser().signIn(config, "wonderland")).toBe(429);
    // The user's browser signs in: its failures are counted on its own device.
    expect(await browser.signIn(config, "wonderland")).toBe(200);

    // A device is still backed off by the strict rule: one free failure, then ten minutes.
    expect(await browser.signIn(config, "guess")).not.toBe(429);
    expect(await browser.signIn(config, "guess")).not.toBe(429);
    expect(await browser.signIn(config, "wonderland")).toBe(429);
  });
}
