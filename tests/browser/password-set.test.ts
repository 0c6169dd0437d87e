/**
 * A password for an account that signs in another way, in the SolidStart example, in real
 * Chromium, as a person does it: a sign-in with the email link (read from the demo's SMTP capture
 * and opened in the same browser, as a mail program hands it over), "Account" then "set or remove
 * a password", a password set, a sign-out and a sign-in with it, and the password removed. The
 * demo configures the email link and the address was proven by it, so the server counts the link
 * as another way in (packages/core/src/lib/features/password/ways-in.ts): the removal is allowed,
 * the password no longer signs in, and the link still does. After the first address, every page
 * is reached by clicking what the pages show.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Demo } from "../../examples/solid-start/scripts/demo.mjs";
import { chromiumPath, launch } from "./chromium.js";
import { removeDataDir, startExample } from "./example-app.js";
import * as mailbox from "./mailbox.js";
import { Tour } from "./tour.js";

describe.skipIf(!chromiumPath)(
  "setting and removing a password in the SolidStart example",
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
    const passwordField = (name: string) => `#input-${name}-for-password-provider`;
    const message = (page: Page) => page.getByTestId("password-message");

    /** The subjects of every captured message to `to`, oldest first. */
    const subjectsTo = async (to: string) =>
      (await mailbox.mailTo(app.mailboxDir, to)).map((m) => m.subject);

    async function expectSignedInAs(page: Page, email: string): Promise<void> {
      await expect.poll(() => status(page).textContent()).toContain(`Signed in as ${email}`);
    }

    async function expectSignedOut(page: Page): Promise<void> {
      await expect.poll(() => status(page).textContent()).toBe("You are not signed in.");
    }

    /** On the built-in sign-in page: the email link asked for, opened from the mail, confirmed. */
    async function signInByEmailLink(page: Page, email: string): Promise<void> {
      const before = (await subjectsTo(email)).length;
      await page.fill("#input-email-for-nodemailer-provider", email);
      await Promise.all([
        page.waitForURL((url) => url.pathname === "/api/auth/verify-request"),
        page.click('button:has-text("Sign in with Email link")'),
      ]);
      // A new message, not the link of an earlier sign-in.
      await expect.poll(async () => (await subjectsTo(email)).length).toBeGreaterThan(before);
      const link = await mailbox.mailedLink(
        app.mailboxDir,
        email,
        /^Sign in to /,
        "/api/auth/callback/nodemailer",
      );
      await page.goto(link);
      // Scanner-safe links: the link opens a page whose one button signs in.
      await Promise.all([
        page.waitForURL(home()),
        page.click(`button:has-text("Sign in as ${email}")`),
      ]);
    }

    /** On the built-in sign-in page: the password form, submitted. */
    async function submitPassword(page: Page, email: string, password: string): Promise<void> {
      await page.fill(passwordField("email"), email);
      await page.fill(passwordField("password"), password);
      await Promise.all([
        page.waitForEvent("load"),
        page.click('button:has-text("Sign in with Password account")'),
      ]);
    }

    /** From the home page, signed out: its "Sign in" link to the built-in sign-in page. */
    async function openSignIn(page: Page): Promise<void> {
      await tour.click(page, "sign-in-link");
      await page.waitForURL((url) => url.pathname === "/api/auth/signin");
    }

    /** From the home page, signed in: "Account", then its "set or remove a password" link. */
    async function openPasswordPage(page: Page, email: string): Promise<void> {
      await tour.click(page, "home-account");
      await page.waitForURL(`${app.url}/account`);
      await tour.click(page, "account-password");
      await page.waitForURL(`${app.url}/password`);
      await tour.look(page);
      expect(await page.getByTestId("password-email").textContent()).toBe(email);
    }

    test("signed in with the email link, set a password on the Password page, sign in with it, remove it (the link still signs in), and the password no longer does", async () => {
      const email = `grace-${Date.now()}@example.com`;
      const chosen = "a lighthouse keeper's winter log";
      const page = await newPage();

      // Signed in with the email link from the home page's "Sign in".
      await page.goto(home());
      await tour.look(page);
      await expectSignedOut(page);
      await openSignIn(page);
      await signInByEmailLink(page, email);
      await expectSignedInAs(page, email);

      // The Password page, reached from "Account". No password yet: nothing to remove.
      await openPasswordPage(page, email);
      await page.getByTestId("password-current").fill("not a password of this account");
      await tour.click(page, "password-remove");
      await expect
        .poll(() => message(page).textContent())
        .toBe("This account has no password to remove.");

      // A password, set within ten minutes of the sign-in; the address is told.
      await page.getByTestId("password-new").fill(chosen);
      await tour.click(page, "password-set");
      await expect
        .poll(() => message(page).textContent())
        .toBe("Your account now also signs in with its address and this password.");
      await expect
        .poll(() => subjectsTo(email))
        .toContainEqual(expect.stringMatching(/^A password was set on your account at /));
      // A second one is refused: the account has one now.
      await page.getByTestId("password-new").fill("another passphrase for the same account");
      await tour.click(page, "password-set");
      await expect
        .poll(() => message(page).textContent())
        .toBe("This account has a password: change it instead.");

      // Signed out, the account signs in with its address and that password.
      await tour.click(page, "nav-home");
      await page.waitForURL(home());
      await tour.click(page, "sign-out");
      await expectSignedOut(page);
      await openSignIn(page);
      await submitPassword(page, email, chosen);
      await page.waitForURL(home());
      await expectSignedInAs(page, email);

      // A second browser signs in with the password too, and opens the protected page.
      const other = await newPage();
      await other.goto(home());
      await tour.look(other);
      await openSignIn(other);
      await submitPassword(other, email, chosen);
      await other.waitForURL(home());
      await expectSignedInAs(other, email);
      await tour.click(other, "nav-protected");
      await other.waitForURL(`${app.url}/protected`);
      await expect.poll(() => other.getByTestId("protected-content").isVisible()).toBe(true);

      // Removing it takes the current password: a wrong one is refused.
      await openPasswordPage(page, email);
      await page.getByTestId("password-current").fill("not the password I set");
      await tour.click(page, "password-remove");
      await expect.poll(() => message(page).textContent()).toBe("The current password is wrong.");

      // With the right one: the proven address's email link is another way in, so the password
      // goes, every other browser is signed out and the address is told.
      await page.getByTestId("password-current").fill(chosen);
      await tour.click(page, "password-remove");
      await expect
        .poll(() => message(page).textContent())
        .toBe("Your password was removed, and every other browser was signed out.");
      await expect
        .poll(() => subjectsTo(email))
        .toContainEqual(expect.stringMatching(/^The password of your account at .* was removed/));

      // This browser stays signed in (under a new session); the other one was signed out: its
      // protected page, reloaded, sends it to the sign-in page.
      await tour.click(page, "nav-home");
      await page.waitForURL(home());
      await expectSignedInAs(page, email);
      await other.reload();
      await other.waitForURL(
        (url) =>
          url.pathname === "/api/auth/signin" &&
          url.searchParams.get("callbackUrl") === "/protected",
      );

      // Signed out, the password no longer signs in; the email link still does.
      await tour.click(page, "sign-out");
      await expectSignedOut(page);
      await openSignIn(page);
      await submitPassword(page, email, chosen);
      expect(new URL(page.url()).pathname).toBe("/api/auth/signin");
      expect(await page.locator("#error").isVisible()).toBe(true);
      await signInByEmailLink(page, email);
      await expectSignedInAs(page, email);

      // Everything the Password page showed was used.
      expect(tour.unclicked().filter((item) => item.endsWith(" on /password"))).toEqual([]);
    });
  },
);
