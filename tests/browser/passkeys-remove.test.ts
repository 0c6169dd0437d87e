/**
 * Listing and removing passkeys on the SolidStart example's Account page, in real Chromium with a
 * virtual authenticator (over CDP): a passkey-only account sees its passkey and is refused its
 * removal (the last way in); an account with a proven address and a password adds a passkey on
 * the Profile page and removes it on the Account page, after which it no longer signs in. Every
 * page is reached by clicking, as a person would.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Demo } from "../../examples/solid-start/scripts/demo.mjs";
import { addVirtualAuthenticator, chromiumPath, launch } from "./chromium.js";
import { removeDataDir, startExample } from "./example-app.js";
import * as mailbox from "./mailbox.js";

describe.skipIf(!chromiumPath)(
  "removing a passkey in the SolidStart example",
  { timeout: 120_000 },
  () => {
    let app: Demo & { dataDir: string };
    let browser: Browser;
    const contexts: BrowserContext[] = [];

    beforeAll(async () => {
      [app, browser] = await Promise.all([startExample(), launch()]);
    }, 300_000);
    afterAll(async () => {
      await Promise.all(contexts.map((context) => context.close().catch(() => undefined)));
      await browser?.close();
      await app?.close();
      if (app) removeDataDir(app.dataDir);
    });

    const home = () => `${app.url}/`;
    const onPath = (path: string) => (url: URL) => url.pathname === path;
    const field = (name: string) => `#input-${name}-for-password-provider`;
    const status = (page: Page) => page.getByTestId("session-status");

    /** A browser with its own cookies and a virtual authenticator, on the home page. */
    async function newPage(): Promise<Page> {
      const context = await browser.newContext();
      contexts.push(context);
      const page = await context.newPage();
      await addVirtualAuthenticator(context, page);
      await page.goto(home());
      return page;
    }

    /** From the home page, signed in: "Account", and the passkeys section read. */
    async function openAccount(page: Page): Promise<void> {
      await page.getByTestId("home-account").click();
      await page.waitForURL(`${app.url}/account`);
      await expect.poll(() => page.getByTestId("account-passkeys").isVisible()).toBe(true);
      await expect
        .poll(() => page.getByTestId("account-passkeys").textContent())
        .not.toContain("Reading your passkeys");
    }

    test("a passkey-only account lists its passkey and cannot remove it: the last way in", async () => {
      const page = await newPage();
      await Promise.all([
        page.waitForURL(onPath("/api/auth/signin")),
        page.getByTestId("sign-in-link").click(),
      ]);
      await Promise.all([page.waitForURL(home()), page.click("#registerButton-passkey")]);
      await expect.poll(() => status(page).textContent()).toContain("Signed in");

      await openAccount(page);
      const rows = page.getByTestId("passkey-row");
      await expect.poll(() => rows.count()).toBe(1);
      expect(await page.getByTestId("passkey-details").textContent()).toContain("internal");
      await page.getByTestId("passkey-remove").click();
      await expect
        .poll(() => page.getByTestId("passkeys-message").textContent())
        .toContain("only way your account signs in");
      expect(await rows.count()).toBe(1);
      expect(await page.getByTestId("passkeys-sign-in-again").count()).toBe(0);
    });

    test("an account with a password adds a passkey, removes it, and the passkey no longer signs in", async () => {
      const email = `grace-${Date.now()}@example.com`;
      const password = "compilers all the way down the hall";
      const page = await newPage();

      // A password account, made from the home page and confirmed by the mailed link.
      await page.getByTestId("home-sign-up").click();
      await page.waitForURL(onPath("/api/auth/signup/password"));
      await page.fill(field("email"), email);
      await page.fill(field("password"), password);
      await Promise.all([
        page.waitForURL(onPath("/api/auth/verify-email/password")),
        page.click('button:has-text("Sign up")'),
      ]);
      const link = await mailbox.mailedLink(
        app.mailboxDir,
        email,
        /^Confirm your email address/,
        "/api/auth/verify-email/password",
      );
      await page.goto(link);
      await Promise.all([
        page.waitForURL(home()),
        page.click('button:has-text("Confirm and sign in")'),
      ]);
      await expect.poll(() => status(page).textContent()).toContain(`Signed in as ${email}`);

      // Profile → "Add a passkey", then home → Account: the passkey is listed.
      await page.getByTestId("nav-profile").click();
      await page.waitForURL(`${app.url}/profile`);
      await page.getByTestId("passkey-add").click();
      await expect
        .poll(() => page.getByTestId("passkey-message").textContent())
        .toContain("Passkey added");
      await page.getByTestId("nav-home").click();
      await page.waitForURL(home());
      await openAccount(page);
      await expect.poll(() => page.getByTestId("passkey-row").count()).toBe(1);

      await page.getByTestId("passkey-remove").click();
      await expect
        .poll(() => page.getByTestId("passkeys-message").textContent())
        .toContain("The passkey was removed.");
      await expect.poll(() => page.getByTestId("passkeys-none").isVisible()).toBe(true);

      // Signed out, the authenticator's passkey no longer signs in.
      await page.context().clearCookies();
      await page.getByTestId("nav-home").click();
      await page.waitForURL(home());
      await page.reload();
      await expect.poll(() => status(page).textContent()).toBe("You are not signed in.");
      await Promise.all([
        page.waitForURL(onPath("/api/auth/signin")),
        page.getByTestId("sign-in-link").click(),
      ]);
      await Promise.all([page.waitForEvent("load"), page.click("#submitButton-passkey")]);
      const session = await (await page.request.get(`${app.url}/api/auth/session`)).json();
      expect(session).toBeNull();
    });
  },
);
