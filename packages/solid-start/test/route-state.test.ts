/**
 * Server helpers that read the auth route's state for a server-rendered page: the CSRF token of
 * a sign-out form, and how the current session signed in.
 */

import { MemoryRevocationStore } from "@gatehousejs/core/revocation/memory";
import {
  getCsrfToken,
  getSessionInfo,
  SolidAuth,
  type SolidAuthConfig,
} from "@gatehousejs/solid-start";
import { provideRequestEvent } from "solid-js/web/storage";
import { describe, expect, test, vi } from "vitest";
import { appRequest, credentialsConfig, eventV1, Jar, SESSION_COOKIE } from "./support.js";

/** Signs alice in through the route; the jar holds her session cookie. */
async function signedIn(config: SolidAuthConfig): Promise<Jar> {
  const { GET, POST } = SolidAuth(config);
  const jar = new Jar();
  const csrf = (await GET({ request: appRequest("/api/auth/csrf") }))!;
  jar.apply(csrf);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const answer = await POST({
    request: appRequest("/api/auth/callback/credentials", jar, {
      form: { csrfToken, username: "alice", password: "wonderland" },
    }),
  });
  jar.apply(answer!);
  expect(jar.get(SESSION_COOKIE)).toBeTruthy();
  return jar;
}

describe("getCsrfToken", () => {
  test("no CSRF cookie yet: a token, its cookie on the page's response, and the pasted sign-out form works", async () => {
    const config = credentialsConfig();
    const jar = await signedIn(config);
    jar.cookies.delete("authjs.csrf-token");
    const event = eventV1(appRequest("/account", jar));
    const token = await provideRequestEvent(event, () => getCsrfToken(event.request, config));
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    const setCookies = event.response.headers.getSetCookie();
    expect(setCookies.some((line) => line.startsWith("authjs.csrf-token="))).toBe(true);

    // The browser now holds that cookie and posts the form the page rendered.
    for (const line of setCookies) jar.set(line);
    const answer = await SolidAuth(config).POST({
      request: appRequest("/api/auth/signout", jar, { form: { csrfToken: token } }),
    });
    expect(answer!.status).toBe(302);
    jar.apply(answer!);
    expect(jar.get(SESSION_COOKIE)).toBeFalsy();
  });

  test("a valid CSRF cookie: its token, and no new cookie", async () => {
    const config = credentialsConfig();
    const jar = await signedIn(config);
    const csrf = (await SolidAuth(config).GET({ request: appRequest("/api/auth/csrf", jar) }))!;
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const event = eventV1(appRequest("/account", jar));
    const token = await provideRequestEvent(event, () => getCsrfToken(event.request, config));
    expect(token).toBe(csrfToken);
    expect(event.response.headers.getSetCookie()).toEqual([]);
  });

  test("a new cookie is needed outside a SolidStart request: a clear error, no token", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    try {
      await expect(getCsrfToken(appRequest("/account"), credentialsConfig())).rejects.toThrow(
        /needs a SolidStart request/,
      );
    } finally {
      log.mockRestore();
    }
  });

  test("with another prefix, the token comes from that route", async () => {
    const config = credentialsConfig({ prefix: "/auth" });
    const event = eventV1(appRequest("/account"));
    const token = await provideRequestEvent(event, () => getCsrfToken(event.request, config));
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    const jar = new Jar();
    for (const line of event.response.headers.getSetCookie()) jar.set(line);
    expect(decodeURIComponent(jar.get("authjs.csrf-token") ?? "").startsWith(`${token}|`)).toBe(
      true,
    );
  });
});

describe("getSessionInfo", () => {
  test("signed out: null", async () => {
    expect(await getSessionInfo(appRequest("/account"), credentialsConfig())).toBeNull();
  });

  test("signed in: the current session, with the provider and its type", async () => {
    const config = credentialsConfig({
      session: { strategy: "jwt", revocation: { store: MemoryRevocationStore() } },
    });
    const jar = await signedIn(config);
    const info = await getSessionInfo(appRequest("/account", jar), config);
    expect(info).toMatchObject({
      current: true,
      provider: "credentials",
      providerType: "credentials",
    });
  });
});
