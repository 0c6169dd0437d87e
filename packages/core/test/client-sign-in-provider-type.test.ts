/**
 * `signIn(id)` of `@gatehousejs/core/client` routes by the provider's type, not its id: a
 * password or credentials provider under an id of the app's choosing signs in through its
 * callback, a WebAuthn provider under another id runs the passkey ceremony, and an OAuth provider
 * under another id still goes to `signin`. The type comes from `GET <basePath>/providers`, asked
 * once per base path and only for ids that are not core's defaults. Against a real `Auth()`
 * handler; each test mounts the route on a base path of its own, since the client keeps the
 * provider list of a base path for the life of the page.
 */

import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import {
  type LoadWebAuthnBrowser,
  signIn,
  type WebAuthnBrowser,
  withPasskeys,
} from "@gatehousejs/core/client";
import Credentials from "@gatehousejs/core/providers/credentials";
import GitHub from "@gatehousejs/core/providers/github";
import Passkey from "@gatehousejs/core/providers/passkey";
import type { AuthConfig } from "@gatehousejs/core/types";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { browserOn } from "./client-browser.js";
import { alice, credentialsConfig, ORIGIN } from "./helpers.js";
import { PASSWORD, passwordWorld } from "./password-world.js";
import { SoftAuthenticator } from "./support/authenticator.js";

const SESSION = "authjs.session-token";

let mounts = 0;
/** A base path no other test of this file has used. */
function freshBasePath(): string {
  mounts += 1;
  return `/auth-${mounts}`;
}

/** Credentials (alice) under the id `ldap`, with an OAuth provider under `corp-github`. */
function ldapConfig(basePath: string): AuthConfig {
  return credentialsConfig({
    basePath,
    providers: [
      Credentials({
        id: "ldap",
        credentials: { username: { label: "Username" }, password: { label: "Password" } },
        authorize: ({ username, password }) =>
          username === "alice" && password === "wonderland" ? { ...alice } : null,
      }),
      GitHub({ id: "corp-github", clientId: "id", clientSecret: "secret" }),
    ],
  });
}

/** The requests the browser made, as `METHOD /path`. */
function requests(sent: { method: string; url: URL }[]): string[] {
  return sent.map((s) => `${s.method} ${s.url.pathname}`);
}

/** Rejections nobody handled while a test ran. */
const unhandled: unknown[] = [];
function onUnhandled(reason: unknown): void {
  unhandled.push(reason);
}

beforeEach(() => {
  unhandled.length = 0;
  process.on("unhandledRejection", onUnhandled);
});

afterEach(() => {
  process.off("unhandledRejection", onUnhandled);
  vi.unstubAllGlobals();
});

/**
 * Makes `GET <basePath>/providers` fail while `failing()` says so (a 503, or with `network` a
 * `fetch` that rejects as a dropped connection does); other requests reach the browser's fetch.
 */
function breakProviderList(failing: () => "status" | "network" | false): void {
  const inner = globalThis.fetch;
  vi.stubGlobal("fetch", async (input: string | URL | Request, init?: RequestInit) => {
    const mode = failing();
    if (mode && new URL(String(input), ORIGIN).pathname.endsWith("/providers")) {
      if (mode === "network") throw new TypeError("Failed to fetch");
      return new Response("unavailable", { status: 503 });
    }
    return inner(input, init);
  });
}

describe("a renamed password or credentials provider", () => {
  test("a password provider named email-password signs in through callback/email-password", async () => {
    const basePath = freshBasePath();
    const w = passwordWorld({ password: { id: "email-password" }, config: { basePath } });
    await w.verifiedUser("ada@example.com");
    const browser = browserOn(w.config);

    const wrong = await signIn("email-password", {
      basePath,
      email: "ada@example.com",
      password: "not the right passphrase at all",
      redirect: false,
    });
    expect(wrong).toMatchObject({ ok: false, error: "CredentialsSignin", url: null });
    expect(browser.jar.cookies.get(SESSION)).toBeUndefined();

    const result = await signIn("email-password", {
      basePath,
      email: "ada@example.com",
      password: PASSWORD,
      redirect: false,
    });
    expect(result).toMatchObject({ ok: true, error: undefined, url: `${ORIGIN}/start` });
    expect(browser.jar.cookies.get(SESSION)).toBeTruthy();
    expect(requests(browser.sent)).toEqual([
      `GET ${basePath}/providers`,
      `GET ${basePath}/csrf`,
      `POST ${basePath}/callback/email-password`,
      `GET ${basePath}/csrf`,
      `POST ${basePath}/callback/email-password`,
    ]);
  });

  test("a credentials provider named ldap signs in through callback/ldap, and navigates by default", async () => {
    const basePath = freshBasePath();
    const browser = browserOn(ldapConfig(basePath));

    const wrong = await signIn("ldap", {
      basePath,
      username: "alice",
      password: "nope",
      redirect: false,
    });
    expect(wrong).toMatchObject({ ok: false, error: "CredentialsSignin", code: "credentials" });

    await signIn("ldap", {
      basePath,
      username: "alice",
      password: "wonderland",
      redirectTo: "/in",
    });
    expect(browser.navigations).toEqual([`${ORIGIN}/in`]);
    expect(browser.jar.cookies.get(SESSION)).toBeTruthy();
    expect(requests(browser.sent).filter((r) => r.startsWith("POST"))).toEqual([
      `POST ${basePath}/callback/ldap`,
      `POST ${basePath}/callback/ldap`,
    ]);
  });
});

describe("the provider list", () => {
  test("is not asked for under core's default ids", async () => {
    const passwordPath = freshBasePath();
    const w = passwordWorld({ config: { basePath: passwordPath } });
    await w.verifiedUser("ada@example.com");
    const first = browserOn(w.config);
    const byPassword = await signIn("password", {
      basePath: passwordPath,
      email: "ada@example.com",
      password: PASSWORD,
      redirect: false,
    });
    expect(byPassword.ok).toBe(true);
    expect(requests(first.sent)).toEqual([
      `GET ${passwordPath}/csrf`,
      `POST ${passwordPath}/callback/password`,
    ]);

    vi.unstubAllGlobals();
    const credentialsPath = freshBasePath();
    const second = browserOn(credentialsConfig({ basePath: credentialsPath }));
    const byCredentials = await signIn("credentials", {
      basePath: credentialsPath,
      username: "alice",
      password: "wonderland",
      redirect: false,
    });
    expect(byCredentials.ok).toBe(true);
    // The plain client refuses a passkey before any request, as before.
    await expect(signIn("passkey", { basePath: credentialsPath, redirect: false })).rejects.toThrow(
      TypeError,
    );
    expect(requests(second.sent)).toEqual([
      `GET ${credentialsPath}/csrf`,
      `POST ${credentialsPath}/callback/credentials`,
    ]);
  });

  test("is asked for once for several calls on one base path, and again on another", async () => {
    const basePath = freshBasePath();
    const config = ldapConfig(basePath);
    const browser = browserOn(config);

    const first = await signIn("ldap", {
      basePath,
      username: "alice",
      password: "nope",
      redirect: false,
    });
    expect(first.error).toBe("CredentialsSignin");
    const second = await signIn("ldap", {
      basePath,
      username: "alice",
      password: "wonderland",
      redirect: false,
    });
    expect(second.ok).toBe(true);
    await signIn("ldap", { basePath, username: "alice", password: "wonderland", redirect: false });
    await signIn("corp-github", { basePath, redirect: false });

    const lists = requests(browser.sent).filter((r) => r.endsWith("/providers"));
    expect(lists).toEqual([`GET ${basePath}/providers`]);
    expect(requests(browser.sent).filter((r) => r.startsWith("POST"))).toEqual([
      `POST ${basePath}/callback/ldap`,
      `POST ${basePath}/callback/ldap`,
      `POST ${basePath}/callback/ldap`,
      `POST ${basePath}/signin/corp-github`,
    ]);

    // Another mount of the route has a list of its own.
    vi.unstubAllGlobals();
    const otherPath = freshBasePath();
    const other = browserOn(ldapConfig(otherPath));
    const elsewhere = await signIn("ldap", {
      basePath: otherPath,
      username: "alice",
      password: "wonderland",
      redirect: false,
    });
    expect(elsewhere.ok).toBe(true);
    expect(requests(other.sent)[0]).toBe(`GET ${otherPath}/providers`);
  });

  for (const mode of ["status", "network"] as const) {
    test(`that could not be had (${mode === "status" ? "a 503" : "a dropped connection"}) rejects nothing, falls back to signin, and is asked for again`, async () => {
      const basePath = freshBasePath();
      const browser = browserOn(ldapConfig(basePath));
      let failing: "status" | "network" | false = mode;
      breakProviderList(() => failing);

      const fallback = await signIn("ldap", {
        basePath,
        username: "alice",
        password: "wonderland",
        redirect: false,
      });
      // Without a list the id goes to signin, as it did before the client read types: the
      // server sends the browser to its sign-in page, and nobody is signed in.
      expect(new URL(fallback.url ?? "").pathname).toBe(`${basePath}/signin`);
      expect(browser.jar.cookies.get(SESSION)).toBeUndefined();
      expect(requests(browser.sent).filter((r) => r.startsWith("POST"))).toEqual([
        `POST ${basePath}/signin/ldap`,
      ]);

      // The failure was not kept: once the list answers, the provider signs in.
      failing = false;
      const later = await signIn("ldap", {
        basePath,
        username: "alice",
        password: "wonderland",
        redirect: false,
      });
      expect(later.ok).toBe(true);
      expect(browser.jar.cookies.get(SESSION)).toBeTruthy();
      expect(requests(browser.sent).filter((r) => r.endsWith("/providers"))).toEqual([
        `GET ${basePath}/providers`,
      ]);
      // A rejection nobody handled surfaces on the next turns of the event loop.
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(unhandled).toEqual([]);
    });
  }
});

describe("other provider types under ids of the app's choosing", () => {
  test("an OAuth provider named corp-github still posts to signin and gets its authorization URL", async () => {
    const basePath = freshBasePath();
    const browser = browserOn(ldapConfig(basePath));

    const result = await signIn("corp-github", { basePath, redirect: false }, { prompt: "login" });
    expect(requests(browser.sent)).toEqual([
      `GET ${basePath}/providers`,
      `GET ${basePath}/csrf`,
      `POST ${basePath}/signin/corp-github`,
    ]);
    expect(browser.sent.at(-1)?.url.searchParams.get("prompt")).toBe("login");
    const url = new URL(result.url ?? "");
    expect(url.origin + url.pathname).toBe("https://github.com/login/oauth/authorize");
    expect(url.searchParams.get("prompt")).toBe("login");
  });

  test("a WebAuthn provider named touch runs the passkey ceremony, with the library when there is one", async () => {
    const basePath = freshBasePath();
    const adapter = MemoryAdapter();
    await adapter.createUser!({ ...alice, emailVerified: null });
    const config = credentialsConfig({
      basePath,
      adapter,
      experimental: { enableWebAuthn: true },
    });
    config.providers = [...config.providers, Passkey({ id: "touch", enableConditionalUI: false })];
    const device = new SoftAuthenticator();
    const browserLibrary: WebAuthnBrowser = {
      startRegistration: async ({ optionsJSON }) => device.register(optionsJSON, ORIGIN),
      startAuthentication: async ({ optionsJSON }) => device.authenticate(optionsJSON, ORIGIN),
    };
    const load = vi.fn<LoadWebAuthnBrowser>(async () => browserLibrary);
    const client = withPasskeys(load);

    // The plain client has no library: it refuses once the list says "webauthn", before the
    // ceremony's first request.
    const plain = browserOn(config);
    await expect(signIn("touch", { basePath, redirect: false })).rejects.toThrow(TypeError);
    expect(requests(plain.sent)).toEqual([`GET ${basePath}/providers`]);

    await client.signIn("credentials", {
      basePath,
      username: "alice",
      password: "wonderland",
      redirect: false,
    });
    const added = await client.signIn("touch", { basePath, action: "register", redirect: false });
    expect(added).toMatchObject({ ok: true, error: undefined });

    vi.unstubAllGlobals();
    const fresh = browserOn(config);
    const back = await client.signIn("touch", { basePath, redirect: false });
    expect(back).toMatchObject({ ok: true, error: undefined });
    expect(fresh.jar.cookies.get(SESSION)).toBeTruthy();
    expect(requests(fresh.sent)).toEqual([
      `GET ${basePath}/webauthn-options/touch`,
      `GET ${basePath}/csrf`,
      `POST ${basePath}/callback/touch`,
    ]);
    expect(load).toHaveBeenCalledTimes(2);
  });
});
