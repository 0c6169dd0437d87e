/**
 * Passkeys end to end in a real browser: the built-in sign-in page's script, Chromium's WebAuthn
 * implementation with a virtual authenticator (over CDP), and Gatehouse behind a real HTTP server.
 */
import { MemoryAdapter } from "@gatehouse/core/adapters/memory";
import Passkey from "@gatehouse/core/providers/passkey";
import type { AuthConfig } from "@gatehouse/core/types";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { chromiumPath, launch } from "./chromium.js";
import { startServer, type TestServer } from "./server.js";

describe.skipIf(!chromiumPath)("passkeys in Chromium", { timeout: 60_000 }, () => {
  const adapter = MemoryAdapter();
  const config: AuthConfig = {
    secret: "browser-test-secret-0123456789abcdef",
    trustHost: true,
    adapter,
    experimental: { enableWebAuthn: true },
    // Conditional UI would race the button's ceremony in a headless browser: tested elsewhere.
    providers: [Passkey({ enableConditionalUI: false })],
    logger: { warn: () => {} },
  };
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startServer(config);
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function pageWithAuthenticator(): Promise<{ page: Page; close: () => Promise<void> }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("WebAuthn.enable");
    await cdp.send("WebAuthn.addVirtualAuthenticator", {
      options: {
        protocol: "ctap2",
        transport: "internal",
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    return { page, close: () => context.close() };
  }

  async function session(page: Page): Promise<{ user?: { email?: string } } | null> {
    return page.evaluate(async () => (await fetch("/auth/session")).json());
  }

  test("register a passkey from the sign-in page, then sign in with it in a new browser session", async () => {
    const { page, close } = await pageWithAuthenticator();
    try {
      await page.goto(`${server.origin}/auth/signin`);
      await page.getByLabel("Email").fill("browser@example.com");
      await Promise.all([
        page.waitForURL(`${server.origin}/`),
        page.click("#submitButton-passkey"),
      ]);
      expect((await session(page))?.user?.email).toBe("browser@example.com");
      const user = await adapter.getUserByEmail!("browser@example.com");
      expect(await adapter.listAuthenticatorsByUserId!(user!.id)).toHaveLength(1);

      // Signed out (cookies gone), the same authenticator signs the user back in.
      await page.context().clearCookies();
      expect(await session(page)).toBeNull();
      await page.goto(`${server.origin}/auth/signin`);
      await page.getByLabel("Email").fill("browser@example.com");
      await Promise.all([
        page.waitForURL(`${server.origin}/`),
        page.click("#submitButton-passkey"),
      ]);
      expect((await session(page))?.user?.email).toBe("browser@example.com");
      const [authenticator] = await adapter.listAuthenticatorsByUserId!(user!.id);
      expect(authenticator!.counter).toBeGreaterThanOrEqual(0);
    } finally {
      await close();
    }
  });

  test("when the ceremony cannot start, the page says so and nothing is posted", async () => {
    const { page, close } = await pageWithAuthenticator();
    try {
      await page.goto(`${server.origin}/auth/signin`);
      await page.getByLabel("Email").fill("second@example.com");
      await Promise.all([
        page.waitForURL(`${server.origin}/`),
        page.click("#submitButton-passkey"),
      ]);
      // Signed in, the button asks for options without saying which ceremony: the server
      // refuses (400), and the script shows its message instead of submitting.
      await page.goto(`${server.origin}/auth/signin`);
      expect(await page.locator("#passkey-error").isVisible()).toBe(false);
      await page.getByLabel("Email").fill("second@example.com");
      await page.click("#submitButton-passkey");
      await expect.poll(() => page.locator("#passkey-error").isVisible()).toBe(true);
      expect(await page.locator("#passkey-error").textContent()).toMatch(/did not work/);
      expect(page.url()).toBe(`${server.origin}/auth/signin`);
    } finally {
      await close();
    }
  });
});
