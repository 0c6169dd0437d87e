/**
 * Password accounts in the SolidStart example, in real Chromium, as a person uses them: "Create
 * an account" from the home page, the confirmation mail caught by the demo's SMTP capture and its
 * link opened in the same browser (as a mail program hands it over), sign-out, "Forgot your
 * password?" on the sign-in page, the mailed reset link, a second browser signed out by the
 * reset, the app's "Change password" page, and a sign-in with the new password. After the first
 * address, every page is reached by clicking what the pages show.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Demo } from "../../examples/solid-start/scripts/demo.mjs";
import { chromiumPath, launch } from "./chromium.js";
import { removeDataDir, startExample } from "./example-app.js";
import * as mailbox from "./mailbox.js";
import { Tour } from "./tour.js";

describe.skipIf(!chromiumPath)(
  "password accounts in the SolidStart example",
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

    /** From the demo's home page, signed out: the built-in sign-in page, the password form, home. */
    async function signIn(page: Page, email: string, password: string): Promise<void> {
      await tour.click(page, "sign-in-link");
      await page.waitForURL((url) => url.pathname === "/api/auth/signin");
      await page.fill(field("email"), email);
      await page.fill(field("password"), password);
      await Promise.all([
        page.waitForEvent("load"),
        page.click('button:has-text("Sign in with Password account")'),
      ]);
    }

    async function expectSignedInAs(page: Page, email: string): Promise<void> {
      await expect.poll(() => status(page).textContent()).toContain(`Signed in as ${email}`);
    }

    test("sign up and confirm by mail, reset a forgotten password (which signs out another browser), change it, sign in with it", async () => {
      const email = `ada-${Date.now()}@example.com`;
      const chosen = "violet kettle drums at noon";
      const reset = "seven quiet lanterns over water";
      const changed = "a brass compass for the north";
      const page = await newPage();

      // Sign up from the home page: the built-in sign-up page, then "check your email".
      await page.goto(home());
      await tour.look(page);
      await expect.poll(() => status(page).textContent()).toBe("You are not signed in.");
      await tour.click(page, "home-sign-up");
      await page.waitForURL((url) => url.pathname === `/api/auth/signup/${provider}`);
      await page.fill(field("email"), email);
      await page.fill(field("password"), chosen);
      await Promise.all([
        page.waitForURL((url) => url.pathname === `/api/auth/verify-email/${provider}`),
        page.click('button:has-text("Sign up")'),
      ]);
      expect(await page.locator("h1").textContent()).toBe("Check your email");

      // The confirmation link, from the mail, in the browser that signed up: confirm, signed in.
      await page.goto(await mailedLink(email, /^Confirm your email address/, "verify-email"));
      await Promise.all([
        page.waitForURL(home()),
        page.click('button:has-text("Confirm and sign in")'),
      ]);
      await expectSignedInAs(page, email);

      // A second browser signs in with the password and opens the protected page.
      const other = await newPage();
      await other.goto(home());
      await tour.look(other);
      await signIn(other, email, chosen);
      await other.waitForURL(home());
      await expectSignedInAs(other, email);
      await tour.click(other, "nav-protected");
      await other.waitForURL(`${app.url}/protected`);
      await expect.poll(() => other.getByTestId("protected-content").isVisible()).toBe(true);

      // The first browser signs out, and has forgotten its password.
      await tour.click(page, "sign-out");
      await expect.poll(() => status(page).textContent()).toBe("You are not signed in.");
      await tour.click(page, "sign-in-link");
      await page.waitForURL((url) => url.pathname === "/api/auth/signin");
      await Promise.all([
        page.waitForURL((url) => url.pathname === `/api/auth/forgot-password/${provider}`),
        page.click('a:has-text("Forgot your password?")'),
      ]);
      await page.fill(field("email"), email);
      await Promise.all([
        page.waitForEvent("load"),
        page.click('button:has-text("Send the link")'),
      ]);
      expect(await page.locator("h1").textContent()).toBe("Check your email");

      // The reset link from the mail: a new password, and signed in.
      await page.goto(await mailedLink(email, /^Reset your password/, "reset-password"));
      await page.fill(field("password"), reset);
      await Promise.all([
        page.waitForURL(home()),
        page.click('button:has-text("Set password and sign in")'),
      ]);
      await expectSignedInAs(page, email);

      // The reset ended every other session: the second browser's protected page, reloaded,
      // sends it to the sign-in page.
      await other.reload();
      await other.waitForURL(
        (url) =>
          url.pathname === "/api/auth/signin" &&
          url.searchParams.get("callbackUrl") === "/protected",
      );
      expect(await other.locator(field("password")).isVisible()).toBe(true);

      // The app's "Change password" page: the current password, a new one.
      await tour.click(page, "home-change-password");
      await page.waitForURL(`${app.url}/change-password`);
      expect(await page.getByTestId("change-password-email").textContent()).toBe(email);
      await page.getByTestId("change-password-current").fill(reset);
      await page.getByTestId("change-password-new").fill(changed);
      await tour.click(page, "change-password-submit");
      await expect
        .poll(() => page.getByTestId("change-password-message").textContent())
        .toContain("Your password was changed");
      await expect
        .poll(async () => (await mailTo(email)).map((m) => m.subject))
        .toContainEqual(expect.stringMatching(/^Your password for .* was changed/));

      // Signed out, the password before the change no longer works; the new one does.
      await tour.click(page, "nav-home");
      await page.waitForURL(home());
      await tour.click(page, "sign-out");
      await expect.poll(() => status(page).textContent()).toBe("You are not signed in.");
      await signIn(page, email, reset);
      expect(new URL(page.url()).pathname).toBe("/api/auth/signin");
      expect(await page.locator("#error").isVisible()).toBe(true);
      // The same sign-in page, tried again with the new password.
      await page.fill(field("email"), email);
      await page.fill(field("password"), changed);
      await Promise.all([
        page.waitForURL(home()),
        page.click('button:has-text("Sign in with Password account")'),
      ]);
      await expectSignedInAs(page, email);
    });
  },
);
