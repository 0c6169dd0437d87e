/**
 * The client's passkey helpers against a real SolidAuth handler and core's WebAuthn
 * verification: `@simplewebauthn/browser`'s two calls are answered by a software authenticator.
 */
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { registerPasskey, signIn } from "@gatehousejs/solid-start/client";
import Passkey from "@gatehousejs/solid-start/providers/passkey";
import { afterEach, describe, expect, test, vi } from "vitest";
import { fakeBrowser } from "./fake-browser.js";
import { softwareAuthenticator } from "./software-authenticator.js";
import { alice, credentialsConfig, ORIGIN, SESSION_COOKIE } from "./support.js";

vi.mock("solid-js", () => import("solid-js/dist/solid.js"));
vi.mock("solid-js/web", () => import("solid-js/web/dist/web.js"));

const browserLib = vi.hoisted(() => ({
  loads: 0,
  startRegistration: undefined as undefined | ((options: never) => unknown),
  startAuthentication: undefined as undefined | ((options: never) => unknown),
}));
vi.mock("@simplewebauthn/browser", () => {
  browserLib.loads++;
  return {
    startRegistration: (options: never) => browserLib.startRegistration?.(options),
    startAuthentication: (options: never) => browserLib.startAuthentication?.(options),
  };
});

afterEach(() => {
  vi.unstubAllGlobals();
});

/** Credentials (alice, stored in the adapter) and passkeys, one adapter. */
async function passkeyConfig() {
  const adapter = MemoryAdapter();
  await adapter.createUser!({ ...alice, id: alice.id!, email: alice.email!, emailVerified: null });
  const config = credentialsConfig({
    adapter,
    experimental: { enableWebAuthn: true },
  });
  config.providers = [...config.providers, Passkey({ enableConditionalUI: false })];
  return { adapter, config };
}

describe("passkeys from the client", () => {
  // First: nothing has loaded the browser library yet in this file.
  test("signIn('credentials') does not load @simplewebauthn/browser", async () => {
    const { config } = await passkeyConfig();
    fakeBrowser(config);
    const result = await signIn("credentials", {
      username: "alice",
      password: "wonderland",
      redirect: false,
    });
    expect(result.ok).toBe(true);
    expect(browserLib.loads).toBe(0);
  });

  test("signed in with a password, registerPasskey adds a passkey to that user; a new browser signs in with it", async () => {
    const { adapter, config } = await passkeyConfig();
    const authenticator = softwareAuthenticator(ORIGIN);
    browserLib.startRegistration = authenticator.register as never;
    browserLib.startAuthentication = authenticator.authenticate as never;

    const first = fakeBrowser(config);
    await signIn("credentials", { username: "alice", password: "wonderland", redirect: false });
    const users = adapter.rows.count().users;
    const added = await registerPasskey({ redirect: false });
    expect(added).toMatchObject({ ok: true, error: undefined, url: `${ORIGIN}/start` });
    expect(browserLib.loads).toBe(1);
    const options = first.sent.find((s) => s.url.pathname === "/api/auth/webauthn-options/passkey");
    expect(options?.url.searchParams.get("action")).toBe("register");
    const posted = first.sent.filter((s) => s.method === "POST").at(-1)!;
    expect(posted.url.pathname).toBe("/api/auth/callback/passkey");
    const form = new URLSearchParams(posted.body);
    expect(form.get("action")).toBe("register");
    expect(form.get("csrfToken")).toMatch(/^[0-9a-f]{64}$/);
    // Linked to alice: no new user, one passkey on her account.
    expect(adapter.rows.count().users).toBe(users);
    expect(await adapter.listAuthenticatorsByUserId!(alice.id!)).toHaveLength(1);

    const second = fakeBrowser(config);
    expect(second.jar.get(SESSION_COOKIE)).toBeFalsy();
    await signIn("passkey", { redirectTo: "/account" });
    expect(second.navigations).toEqual([`${ORIGIN}/account`]);
    expect(second.jar.get(SESSION_COOKIE)).toBeTruthy();
    const session = await (await fetch("/api/auth/session")).json();
    expect(session.user.email).toBe(alice.email);
  });

  test("a passkey the server refuses: ok false with the error, the session unchanged", async () => {
    const { config } = await passkeyConfig();
    const stranger = softwareAuthenticator(ORIGIN);
    stranger.register({ optionsJSON: { challenge: "x", rp: {} } });
    browserLib.startAuthentication = stranger.authenticate as never;
    const browser = fakeBrowser(config);
    const result = await signIn("passkey", { redirect: false });
    expect(result).toMatchObject({ ok: false, error: "WebAuthnVerificationError", url: null });
    expect(browser.jar.get(SESSION_COOKIE)).toBeFalsy();
  });

  test("the person cancels: the browser's error, and nothing is posted", async () => {
    const { config } = await passkeyConfig();
    browserLib.startRegistration = () => {
      throw new DOMException(
        "The operation either timed out or was not allowed.",
        "NotAllowedError",
      );
    };
    const browser = fakeBrowser(config);
    await expect(registerPasskey({ redirect: false })).rejects.toThrow(/not allowed/);
    expect(browser.sent.filter((s) => s.method === "POST")).toEqual([]);
  });

  test("a provider the server does not have: ok false, no prompt", async () => {
    const { config } = await passkeyConfig();
    const prompt = vi.fn();
    browserLib.startRegistration = prompt;
    fakeBrowser(config);
    const result = await registerPasskey({ provider: "nope", redirect: false });
    expect(result.ok).toBe(false);
    expect(result.status).toBeGreaterThanOrEqual(400);
    expect(prompt).not.toHaveBeenCalled();
  });
});
