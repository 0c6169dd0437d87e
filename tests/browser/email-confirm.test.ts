/**
 * Scanner-safe links and sign-in codes in the SolidStart example, in real Chromium: the mailed
 * link opens a confirmation page whose button signs in (a plain fetch of the link, as a mail
 * scanner makes, signs nobody in), and the mailed code typed on the "check your email" page signs
 * in the browser that asked, and only that one.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Demo } from "../../examples/solid-start/scripts/demo.mjs";
import { chromiumPath, launch } from "./chromium.js";
import { removeDataDir, startExample } from "./example-app.js";

describe.skipIf(!chromiumPath)(
  "email confirmation and codes in Chromium",
  { timeout: 60_000 },
  () => {
    let app: Demo & { dataDir: string };
    let browser: Browser;
    const contexts: BrowserContext[] = [];

    beforeAll(async () => {
      [app, browser] = await Promise.all([startExample(), launch()]);
    }, 240_000);
    afterAll(async () => {
      await browser?.close();
      await app?.close();
      if (app) removeDataDir(app.dataDir);
    });

    async function newPage(): Promise<Page> {
      const context = await browser.newContext();
      contexts.push(context);
      return context.newPage();
    }

    const home = () => `${app.url}/`;

    /**
     * Asks for a sign-in email as a person does: the home page, its "Sign in", the built-in
     * page's email form; ends on the "check your email" page.
     */
    async function askForEmail(page: Page, address: string): Promise<void> {
      await page.goto(home());
      await Promise.all([
        page.waitForURL((url) => url.pathname === "/api/auth/signin"),
        page.getByTestId("sign-in-link").click(),
      ]);
      await page.fill("#input-email-for-nodemailer-provider", address);
      await Promise.all([
        page.waitForURL(/\/api\/auth\/verify-request/),
        page.click('button:has-text("Sign in with Email link")'),
      ]);
    }

    /**
     * The message to `address`, read in another tab: the demo's home page, its mailbox link.
     * The tab stays open; `open` clicks the message's link there.
     */
    async function mailTo(page: Page, address: string) {
      const tab = await page.context().newPage();
      await tab.goto(home());
      await tab.getByTestId("demo-mailbox-link").click();
      await tab.waitForURL(`${app.url}/dev/mailbox`);
      const message = tab.getByTestId("mailbox-message").filter({ hasText: address });
      await expect.poll(() => message.count()).toBe(1);
      const link = (await message.getByTestId("mailbox-link").getAttribute("href")) ?? "";
      const code = (await message.getByTestId("mailbox-code").textContent()) ?? "";
      return { link, code, tab, open: () => message.getByTestId("mailbox-link").click() };
    }

    async function sessionEmail(page: Page): Promise<string | undefined> {
      const session = await page.evaluate(async () => (await fetch("/api/auth/session")).json());
      return (session as { user?: { email?: string } } | null)?.user?.email;
    }

    test("the link opens a confirmation page; a scanner's fetch signs nobody in; the button does", async () => {
      const page = await newPage();
      const address = `confirm-${Date.now()}@example.com`;
      await askForEmail(page, address);
      const { link, tab, open } = await mailTo(page, address);
      expect(new URL(link).pathname).toBe("/api/auth/callback/nodemailer");

      // A mail scanner fetches the link first: a page, no session cookie, nothing consumed.
      const scanned = await fetch(link, { redirect: "manual" });
      expect(scanned.status).toBe(200);
      expect(scanned.headers.getSetCookie().some((c) => c.includes("session-token"))).toBe(false);

      // The person clicks the link in the mailbox tab.
      await Promise.all([tab.waitForURL((url) => url.pathname.startsWith("/api/auth/")), open()]);
      expect(await tab.title()).toBe("Sign In");
      expect(await sessionEmail(tab)).toBeUndefined();
      await Promise.all([
        tab.waitForURL(home()),
        tab.click(`button:has-text("Sign in as ${address}")`),
      ]);
      await expect.poll(() => sessionEmail(tab)).toBe(address);
      // One browser: the tab that asked is signed in too.
      expect(await sessionEmail(page)).toBe(address);
    });

    test("the code typed on the check-your-email page signs in; in another browser it does not", async () => {
      const page = await newPage();
      const address = `code-${Date.now()}@example.com`;
      await askForEmail(page, address);
      const { code, tab } = await mailTo(page, address);
      await tab.close();
      expect(code).toMatch(/^\d{8}$/);
      const input = page.locator('input[name="code"]');
      expect(await input.getAttribute("autocomplete")).toBe("one-time-code");

      // Another browser (no binding cookie) given the page's address gets no form for the code.
      const stranger = await newPage();
      await stranger.goto(page.url());
      expect(await stranger.locator('input[name="code"]').count()).toBe(0);

      // A wrong code first: back to the page, with a message.
      const wrong = code.replace(/\d$/, (d) => String((Number(d) + 1) % 10));
      await input.fill(wrong);
      await Promise.all([
        page.waitForURL(/code=wrong_code/),
        page.click('button:has-text("Sign in with code")'),
      ]);
      expect(await page.locator(".error").textContent()).toContain("not right");
      expect(await sessionEmail(page)).toBeUndefined();

      await page.locator('input[name="code"]').fill(code);
      await Promise.all([
        page.waitForURL(home()),
        page.click('button:has-text("Sign in with code")'),
      ]);
      await expect.poll(() => sessionEmail(page)).toBe(address);
    });
  },
);
