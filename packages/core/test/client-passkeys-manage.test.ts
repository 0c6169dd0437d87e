/**
 * `listPasskeys` and `removePasskey` in `@gatehousejs/core/client`, against core's real routes
 * (a stubbed `fetch` hands each request to `Auth()`), with passkeys registered through
 * `withPasskeys` and a software authenticator.
 */
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import {
  AuthRouteError,
  confirmTwoFactor,
  enrollTwoFactor,
  listPasskeys,
  removePasskey,
  signIn,
  type WebAuthnBrowser,
  withPasskeys,
} from "@gatehousejs/core/client";
import Passkey from "@gatehousejs/core/providers/passkey";
import TwoFactor from "@gatehousejs/core/two-factor";
import type { AuthConfig } from "@gatehousejs/core/types";
import { afterEach, describe, expect, test, vi } from "vitest";
import { totpCode, totpStep } from "../src/lib/features/two-factor/totp.js";
import { browserOn } from "./client-browser.js";
import { alice, credentialsConfig, ORIGIN } from "./helpers.js";
import { SoftAuthenticator } from "./support/authenticator.js";

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

async function passkeyConfig(extra: Partial<AuthConfig> = {}): Promise<AuthConfig> {
  const adapter = MemoryAdapter();
  await adapter.createUser!({ ...alice, emailVerified: null });
  const config = credentialsConfig({
    basePath: "/api/auth",
    adapter,
    experimental: { enableWebAuthn: true },
    ...extra,
  });
  config.providers = [...config.providers, Passkey({ enableConditionalUI: false })];
  return config;
}

/** Alice signed in with credentials in a browser, with `count` passkeys registered. */
async function aliceWithPasskeys(config: AuthConfig, count: number) {
  const browser = browserOn(config, `${ORIGIN}/account`);
  await signIn("credentials", { username: "alice", password: "wonderland", redirect: false });
  const library: WebAuthnBrowser = {
    startRegistration: async ({ optionsJSON }) =>
      new SoftAuthenticator().register(optionsJSON, ORIGIN),
    startAuthentication: async () => {
      throw new Error("not used");
    },
  };
  const client = withPasskeys(async () => library);
  for (let i = 0; i < count; i++) {
    expect(await client.registerPasskey({ redirect: false })).toMatchObject({ ok: true });
  }
  return browser;
}

describe("listPasskeys", () => {
  test("lists the signed-in user's passkeys; null when signed out", async () => {
    const config = await passkeyConfig();
    browserOn(config);
    expect(await listPasskeys()).toBeNull();
    vi.unstubAllGlobals();
    await aliceWithPasskeys(config, 2);
    const passkeys = await listPasskeys();
    expect(passkeys).toHaveLength(2);
    expect(passkeys![0]).toEqual({
      credentialID: expect.any(String),
      provider: "passkey",
      deviceType: "singleDevice",
      backedUp: false,
      transports: ["internal"],
    });
  });

  test("a server without a passkey provider: AuthRouteError PasskeysOff (404)", async () => {
    browserOn(credentialsConfig({ basePath: "/api/auth" }));
    const error = await listPasskeys().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthRouteError);
    expect(error).toMatchObject({ status: 404, error: "PasskeysOff" });
  });
});

describe("removePasskey", () => {
  test("removes one, resolves with the rest; the last one is refused with LastWayIn", async () => {
    const config = await passkeyConfig();
    const browser = await aliceWithPasskeys(config, 2);
    const [first, second] = (await listPasskeys())!;
    const removed = await removePasskey(first!.credentialID);
    expect(removed.status).toBe("passkeyRemoved");
    expect(removed.passkeys.map((p) => p.credentialID)).toEqual([second!.credentialID]);
    const post = browser.sent.find((s) => s.url.pathname === "/api/auth/passkeys/remove")!;
    expect(JSON.parse(post.body)).toMatchObject({
      credentialID: first!.credentialID,
      csrfToken: expect.any(String),
    });
    const last = await removePasskey(second!.credentialID).catch((e: unknown) => e);
    expect(last).toBeInstanceOf(AuthRouteError);
    expect(last).toMatchObject({ status: 400, error: "LastWayIn", signInUrl: undefined });
    expect(await listPasskeys()).toHaveLength(1);
  });

  test("an id not the user's is UnknownPasskey (404); signed out is Unauthenticated (401)", async () => {
    const config = await passkeyConfig();
    await aliceWithPasskeys(config, 2);
    await expect(removePasskey("AAAA")).rejects.toMatchObject({
      status: 404,
      error: "UnknownPasskey",
    });
    vi.unstubAllGlobals();
    browserOn(config);
    await expect(removePasskey("AAAA")).rejects.toMatchObject({
      status: 401,
      error: "Unauthenticated",
    });
  });

  test("refuses an empty id before any request", async () => {
    const browser = browserOn(await passkeyConfig());
    await expect(removePasskey("")).rejects.toThrow(TypeError);
    expect(browser.sent).toEqual([]);
  });

  test("a two-factor user with an old sign-in: ReauthenticationRequired (403) with signInUrl back to callbackUrl", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-11-26T10:00:00Z"));
    const config = await passkeyConfig({
      twoFactor: TwoFactor(),
      session: { strategy: "database" },
    });
    await aliceWithPasskeys(config, 2);
    const { secret } = await enrollTwoFactor();
    await confirmTwoFactor(await totpCode(secret, totpStep()));
    const [first] = (await listPasskeys())!;
    vi.setSystemTime(new Date("2026-11-26T10:11:00Z"));
    const error = await removePasskey(first!.credentialID, { callbackUrl: "/account" }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AuthRouteError);
    expect(error).toMatchObject({ status: 403, error: "ReauthenticationRequired" });
    const signInUrl = new URL((error as AuthRouteError).signInUrl!);
    expect(signInUrl.pathname).toBe("/api/auth/signin");
    expect(signInUrl.searchParams.get("callbackUrl")).toBe(`${ORIGIN}/account`);
    expect(await listPasskeys()).toHaveLength(2);
  });
});
