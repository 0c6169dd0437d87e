/**
 * Passkeys end to end in a real browser: the built-in sign-in page's script, Chromium's WebAuthn
 * implementation with a virtual authenticator (over CDP), and Gatehouse behind a real HTTP server.
 */
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import Email from "@gatehousejs/core/providers/email";
import Passkey from "@gatehousejs/core/providers/passkey";
import type { AuthConfig } from "@gatehousejs/core/types";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { addVirtualAuthenticator, chromiumPath, launch } from "./chromium.js";
import { startServer, type TestServer } from "./server.js";

describe.skipIf(!chromiumPath)("passkeys in Chromium", { timeout: 60_000 }, () => {
  const adapter = MemoryAdapter();
  const mailed: string[] = [];
  const config: AuthConfig = {
    secret: "browser-test-secret-0123456789abcdef",
    trustHost: true,
    adapter,
    experimental: { enableWebAuthn: true },
    // Conditional UI would race the button's ceremony in a headless browser: tested elsewhere.
    providers: [
      Passkey(),
      Email({
        sendVerificationRequest: ({ url }) => {
          mailed.push(url);
        },
      }),
    ],
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
    await addVirtualAuthenticator(context, page);
    return { page, close: () => context.close() };
  }

  async function session(page: Page): Promise<{ user?: { email?: string } } | null> {
    return page.evaluate(async () => (await fetch("/auth/session")).json());
  }

  /**
   * The sign-in page as a person reaches it: the home page's link (the home page is opened by
   * address when the page shows nothing yet).
   */
  async function toSignIn(page: Page): Promise<void> {
    if (page.url() === "about:blank") await page.goto(`${server.origin}/`);
    if (new URL(page.url()).pathname !== "/") {
      throw new Error(`toSignIn starts on the home page, not ${page.url()}`);
    }
    await Promise.all([page.waitForURL(/\/auth\/signin/), page.click("#sign-in")]);
  }

  /** Clicks `selector` and waits for the navigation it starts to reach the home page. */
  async function clickHome(page: Page, selector: string): Promise<void> {
    await Promise.all([page.waitForURL(`${server.origin}/`), page.click(selector)]);
  }

  test("sign up with a passkey from the sign-in page, then sign in with it in a new browser session", async () => {
    const { page, close } = await pageWithAuthenticator();
    try {
      const users = adapter.rows.count().users;
      await toSignIn(page);
      await clickHome(page, "#registerButton-passkey");
      expect(await session(page)).not.toBeNull();
      // A passkey-only account: no address, so nobody's email can ever lead to it.
      expect(adapter.rows.count().users).toBe(users + 1);
      const authenticators = adapter.rows.count().authenticators;

      // Signed out (cookies gone), the same authenticator signs the user back in: no new user.
      await page.context().clearCookies();
      expect(await session(page)).toBeNull();
      await toSignIn(page);
      await clickHome(page, "#submitButton-passkey");
      expect(await session(page)).not.toBeNull();
      expect(adapter.rows.count()).toMatchObject({ users: users + 1, authenticators });
    } finally {
      await close();
    }
  });

  test("signed in by email, add a passkey, then sign in with it", async () => {
    const { page, close } = await pageWithAuthenticator();
    try {
      await toSignIn(page);
      await page.fill("#input-email-for-email-provider", "browser@example.com");
      await Promise.all([
        page.waitForURL(/\/auth\/verify-request/),
        page.click('button:has-text("Sign in with Email")'),
      ]);
      // The link arrives by email: opened from the mail program, not from a page.
      await page.goto(mailed.at(-1)!);
      // Scanner-safe links: the link opens a page whose one button signs in.
      await clickHome(page, 'button:has-text("Sign in as browser@example.com")');
      expect((await session(page))?.user?.email).toBe("browser@example.com");

      await toSignIn(page);
      await clickHome(page, "#registerButton-passkey");
      const user = await adapter.getUserByEmail!("browser@example.com");
      expect(await adapter.listAuthenticatorsByUserId!(user!.id)).toHaveLength(1);

      await page.context().clearCookies();
      await toSignIn(page);
      await clickHome(page, "#submitButton-passkey");
      expect((await session(page))?.user?.email).toBe("browser@example.com");
    } finally {
      await close();
    }
  });

  test("when the ceremony cannot start, the page says so and nothing is posted", async () => {
    const { page, close } = await pageWithAuthenticator();
    try {
      await toSignIn(page);
      await clickHome(page, "#registerButton-passkey");
      // Signed in, the sign-in button asks for options without saying which ceremony: the
      // server refuses (400), and the script shows its message instead of submitting.
      await toSignIn(page);
      expect(await page.locator("#passkey-error").isVisible()).toBe(false);
      await page.click("#submitButton-passkey");
      await expect.poll(() => page.locator("#passkey-error").isVisible()).toBe(true);
      expect(await page.locator("#passkey-error").textContent()).toMatch(/did not work/);
      expect(page.url()).toBe(`${server.origin}/auth/signin`);
    } finally {
      await close();
    }
  });
});
