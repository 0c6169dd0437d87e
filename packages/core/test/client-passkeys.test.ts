/**
 * Passkeys in `@gatehousejs/core/client`: the WebAuthn browser library is handed in through
 * `withPasskeys`, loaded on the first ceremony only, and the plain `signIn` refuses passkeys
 * before sending anything. Against core's real WebAuthn verification, with a software
 * authenticator answering for the browser.
 */
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import {
  type LoadWebAuthnBrowser,
  signIn,
  type WebAuthnBrowser,
  withPasskeys,
} from "@gatehousejs/core/client";
import Passkey from "@gatehousejs/core/providers/passkey";
import type { AuthConfig } from "@gatehousejs/core/types";
import { afterEach, describe, expect, test, vi } from "vitest";
import { browserOn } from "./client-browser.js";
import { alice, credentialsConfig, ORIGIN } from "./helpers.js";
import { SoftAuthenticator } from "./support/authenticator.js";

afterEach(() => {
  vi.unstubAllGlobals();
});

/** Credentials (alice) and passkeys under /api/auth, the client's default base path. */
async function passkeyConfig(): Promise<AuthConfig> {
  const adapter = MemoryAdapter();
  await adapter.createUser!({ ...alice, emailVerified: null });
  const config = credentialsConfig({
    basePath: "/api/auth",
    adapter,
    experimental: { enableWebAuthn: true },
  });
  config.providers = [...config.providers, Passkey({ enableConditionalUI: false })];
  return config;
}

/** A WebAuthn browser library answered by `device`, and how often it was loaded. */
function library(device: SoftAuthenticator) {
  const browser: WebAuthnBrowser = {
    startRegistration: async ({ optionsJSON }) => device.register(optionsJSON, ORIGIN),
    startAuthentication: async ({ optionsJSON }) => device.authenticate(optionsJSON, ORIGIN),
  };
  const load = vi.fn<LoadWebAuthnBrowser>(async () => browser);
  return { load };
}

const SESSION_COOKIE = "authjs.session-token";

describe("withPasskeys", () => {
  test("registers a passkey and signs in with it through the library it was given, loaded on the first ceremony", async () => {
    const config = await passkeyConfig();
    const device = new SoftAuthenticator();
    const { load } = library(device);
    const client = withPasskeys(load);

    const first = browserOn(config);
    await client.signIn("credentials", {
      username: "alice",
      password: "wonderland",
      redirect: false,
    });
    expect(load).not.toHaveBeenCalled();
    const added = await client.registerPasskey({ redirect: false });
    expect(added).toMatchObject({ ok: true, error: undefined, url: `${ORIGIN}/start` });
    expect(load).toHaveBeenCalledTimes(1);
    expect(first.sent.map((s) => `${s.method} ${s.url.pathname}${s.url.search}`)).toContain(
      "GET /api/auth/webauthn-options/passkey?action=register",
    );

    vi.unstubAllGlobals();
    const second = browserOn(config);
    await client.signIn("passkey", { redirectTo: "/account" });
    expect(second.navigations).toEqual([`${ORIGIN}/account`]);
    expect(second.jar.cookies.get(SESSION_COOKIE)).toBeTruthy();
    expect(load).toHaveBeenCalledTimes(2);
  });

  test("takes only a function", () => {
    expect(() => withPasskeys(undefined as never)).toThrow(TypeError);
    expect(() => withPasskeys({} as never)).toThrow(/loads the WebAuthn browser library/);
  });

  test("a library that cannot load: the sign-in rejects with its error, nothing is posted", async () => {
    const config = await passkeyConfig();
    const browser = browserOn(config);
    const client = withPasskeys(() => Promise.reject(new Error("chunk failed to load")));
    await expect(client.signIn("passkey", { redirect: false })).rejects.toThrow(/chunk failed/);
    expect(browser.sent.filter((s) => s.method === "POST")).toEqual([]);
  });
});

describe("the plain signIn", () => {
  test("refuses a passkey with a TypeError naming withPasskeys, before any request", async () => {
    const config = await passkeyConfig();
    const browser = browserOn(config);
    for (const provider of ["passkey", "webauthn"]) {
      await expect(signIn(provider, { redirect: false })).rejects.toThrow(TypeError);
      await expect(signIn(provider)).rejects.toThrow(/withPasskeys/);
    }
    expect(browser.sent).toEqual([]);
    expect(browser.jar.cookies.size).toBe(0);
  });

  test("signs in with credentials as the one of withPasskeys does", async () => {
    const config = await passkeyConfig();
    const browser = browserOn(config);
    const result = await signIn("credentials", {
      username: "alice",
      password: "wonderland",
      redirect: false,
    });
    expect(result).toEqual({
      ok: true,
      error: undefined,
      code: undefined,
      status: 200,
      url: `${ORIGIN}/start`,
    });
    expect(browser.jar.cookies.get(SESSION_COOKIE)).toBeTruthy();
  });
});
