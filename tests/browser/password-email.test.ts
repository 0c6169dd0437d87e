/**
 * A password account changes its address in the SolidStart example, in real Chromium, as a
 * person does it: "Create an account" and its confirmation mail, then "Account" from the home
 * page, the new address typed with the current password, the link mailed to the new address
 * (read from the demo's SMTP capture) opened and confirmed on the built-in page, every browser
 * signed out, and a sign-in with the new address. After the first address, every page is reached
 * by clicking what the pages show.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Demo } from "../../examples/solid-start/scripts/demo.mjs";
import { chromiumPath, launch } from "./chromium.js";
import { removeDataDir, startExample } from "./example-app.js";
import * as mailbox from "./mailbox.js";
import { Tour } from "./tour.js";

describe.skipIf(!chromiumPath)(
  "changing the address of a password account in the SolidStart example",
  { timeout: 240_000 },
  () => {
    let app: Demo & { dataDir: string };
    let browser: Browser;
    let tour: Tour;
    const contexts: BrowserContext[] = [];

    beforeAll(async () => {
      [app, browser] = await Promise.all([startExample(), launch()]);
      tour = new Tour(new URL(app.url).origin);
    }, 300_000);
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
    const status = (page: Page) => page.getByTestId("session-status");
    const provider = "password";
    const field = (name: string) => `#input-${name}-for-${provider}-provider`;

    /** Every captured message to `to`, oldest first. */
    const mailTo = (to: string) => mailbox.mailTo(app.mailboxDir, to);

    /** The link on this app's `route` in the newest matching message to `to`. */
    const mailedLink = (to: string, subject: RegExp, route: string) =>
      mailbox.mailedLink(app.mailboxDir, to, subject, `/api/auth/${route}/${provider}`);

    async function expectSignedInAs(page: Page, email: string): Promise<void> {
      await expect.poll(() => status(page).textContent()).toContain(`Signed in as ${email}`);
    }

    test("sign up, change the address on the Account page, confirm from the new address's mail, sign in with it", async () => {
      const stamp = Date.now();
      const email = `ada-${stamp}@example.com`;
      const moved = `ada-moved-${stamp}@example.com`;
      const password = "violet kettle drums at noon";
      const page = await newPage();

      // A password account: sign up from the home page, confirm with the mailed link.
      await page.goto(home());
      await tour.look(page);
      await expect.poll(() => status(page).textContent()).toBe("You are not signed in.");
      await tour.click(page, "home-sign-up");
      await page.waitForURL((url) => url.pathname === `/api/auth/signup/${provider}`);
      await page.fill(field("email"), email);
      await page.fill(field("password"), password);
      await Promise.all([
        page.waitForURL((url) => url.pathname === `/api/auth/verify-email/${provider}`),
        page.click('button:has-text("Sign up")'),
      ]);
      await page.goto(await mailedLink(email, /^Confirm your email address/, "verify-email"));
      await Promise.all([
        page.waitForURL(home()),
        page.click('button:has-text("Confirm and sign in")'),
      ]);
      await expectSignedInAs(page, email);

      // "Account" from the home page: the new address and the current password.
      await tour.click(page, "home-account");
      await page.waitForURL(`${app.url}/account`);
      await tour.look(page);
      expect(await page.getByTestId("account-email").textContent()).toBe(email);
      await page.getByTestId("account-new-email").fill(moved);
      await page.getByTestId("account-current-password").fill(password);
      await tour.click(page, "account-change-email");
      await expect
        .poll(() => page.getByTestId("account-message").textContent())
        .toBe("We sent a link to the new address: your address changes when it is used.");
      // Nothing changed yet: still signed in under the old address.
      await tour.click(page, "nav-home");
      await page.waitForURL(home());
      await expectSignedInAs(page, email);

      // The link from the mail to the new address: its page's button makes the change.
      await page.goto(await mailedLink(moved, /^Confirm your new email address/, "change-email"));
      expect(await page.locator("h1").textContent()).toBe("Confirm your new email address");
      await Promise.all([
        page.waitForEvent("load"),
        page.click('button:has-text("Use this address")'),
      ]);
      expect(await page.locator("h1").textContent()).toBe("Your email address was changed");
      await expect
        .poll(async () => (await mailTo(email)).map((m) => m.subject))
        .toContainEqual(expect.stringMatching(/^Your email address at .* was changed/));

      // Every browser was signed out, this one too: the page's "Sign in" link. The old address
      // no longer signs in; the new one does, with the same password.
      await Promise.all([
        page.waitForURL((url) => url.pathname === "/api/auth/signin"),
        page.click('a:has-text("Sign in")'),
      ]);
      await page.fill(field("email"), email);
      await page.fill(field("password"), password);
      await Promise.all([
        page.waitForEvent("load"),
        page.click('button:has-text("Sign in with Password account")'),
      ]);
      expect(new URL(page.url()).pathname).toBe("/api/auth/signin");
      expect(await page.locator("#error").isVisible()).toBe(true);
      await page.fill(field("email"), moved);
      await page.fill(field("password"), password);
      await Promise.all([
        page.waitForURL(home()),
        page.click('button:has-text("Sign in with Password account")'),
      ]);
      await expectSignedInAs(page, moved);
    });
  },
);
