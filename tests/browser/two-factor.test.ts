/**
 * Two-factor sign-in in the SolidStart example, in real Chromium, as a person uses it: a password
 * account made from the home page and confirmed by mail, "Account" then "set up or turn off
 * two-factor sign-in", the built-in set-up page read as a person reads it (the key under the QR
 * code, typed into an "app" that is the test computing codes with core's own TOTP), the backup
 * codes kept, then sign-ins that stop on the challenge page until a code or a backup code is
 * given, the count of backup codes going down, and two-factor turned off with a code. After the
 * first address, every page is reached by clicking what the pages show; the built-in pages have
 * no link back to the app, so a person leaves them by typing the app's address.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Demo } from "../../examples/solid-start/scripts/demo.mjs";
import { totpCode, totpStep } from "../../packages/core/src/lib/features/two-factor/totp.js";
import { chromiumPath, launch } from "./chromium.js";
import { removeDataDir, startExample } from "./example-app.js";
import * as mailbox from "./mailbox.js";
import { Tour } from "./tour.js";

describe.skipIf(!chromiumPath)(
  "two-factor sign-in in the SolidStart example",
  { timeout: 240_000 },
  () => {
    let app: Demo & { dataDir: string };
    let browser: Browser;
    let tour: Tour;
    const contexts: BrowserContext[] = [];
    /** Every address the browsers asked for that is not the app's own (nor inline `data:`). */
    const elsewhere: string[] = [];
    /** How many requests the browsers made in all (the listener above did run). */
    let requests = 0;

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
      const origin = new URL(app.url).origin;
      context.on("request", (request) => {
        requests++;
        const url = new URL(request.url());
        if (url.protocol !== "data:" && url.origin !== origin) elsewhere.push(url.href);
      });
      return context.newPage();
    }

    const home = () => `${app.url}/`;
    const status = (page: Page) => page.getByTestId("session-status");
    const field = (name: string) => `#input-${name}-for-password-provider`;
    const onPath = (path: string) => (url: URL) => url.pathname === path;
    const heading = (page: Page) => page.locator("h1").textContent();
    const backupCodesLeft = async (page: Page) =>
      Number(await page.locator("[data-backup-codes-left]").getAttribute("data-backup-codes-left"));

    async function expectSignedInAs(page: Page, email: string): Promise<void> {
      await expect.poll(() => status(page).textContent()).toContain(`Signed in as ${email}`);
    }

    async function expectSignedOut(page: Page): Promise<void> {
      await expect.poll(() => status(page).textContent()).toBe("You are not signed in.");
    }

    /** What the app's session endpoint answers this browser: a user, or nobody. */
    async function sessionUser(page: Page): Promise<unknown> {
      const answer = await page.request.get(`${app.url}/api/auth/session`);
      const body = (await answer.json()) as { user?: unknown } | null;
      return body?.user ?? null;
    }

    /** The home page, typed in: the first address of a test. */
    async function openHome(page: Page): Promise<void> {
      await page.goto(home());
      await tour.look(page);
    }

    /** From a built-in two-factor settings page, its "Back to the site" link. */
    async function backToSite(page: Page): Promise<void> {
      await Promise.all([page.waitForURL(home()), page.click('a:has-text("Back to the site")')]);
      await tour.look(page);
    }

    /** From the home page, signed out: "Sign in", the password form, submitted. */
    async function signInWithPassword(page: Page, email: string, password: string) {
      await tour.click(page, "sign-in-link");
      await page.waitForURL(onPath("/api/auth/signin"));
      await page.fill(field("email"), email);
      await page.fill(field("password"), password);
      await Promise.all([
        page.waitForEvent("load"),
        page.click('button:has-text("Sign in with Password account")'),
      ]);
    }

    /** From the home page, signed in: "Account", then its link to the two-factor page. */
    async function openTwoFactorSettings(page: Page): Promise<void> {
      await tour.click(page, "home-account");
      await page.waitForURL(`${app.url}/account`);
      await tour.click(page, "account-two-factor");
      await page.waitForURL(onPath("/api/auth/two-factor"));
      expect(await heading(page)).toBe("Two-factor sign-in");
    }

    /**
     * The authenticator app: a code of a step after `lastUsed` (the server accepts no step twice)
     * and within one step of now. When `lastUsed` is the step ahead of now, it waits for the clock.
     */
    async function nextCode(
      secret: string,
      lastUsed: number,
    ): Promise<{ code: string; step: number }> {
      while (totpStep(Date.now()) < lastUsed) {
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      const step = Math.max(lastUsed + 1, totpStep(Date.now()));
      return { code: await totpCode(secret, step), step };
    }

    test("set up on the Account page's link, then signing in asks for a code or a backup code; turned off with a code, the password alone signs in", async () => {
      const email = `hedy-${Date.now()}@example.com`;
      const password = "frequency hopping over the harbour";
      const page = await newPage();

      // A password account, made from the home page and confirmed by the mailed link.
      await openHome(page);
      await expectSignedOut(page);
      await tour.click(page, "home-sign-up");
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
      await expectSignedInAs(page, email);

      // Account → two-factor: off, with one button to set it up.
      await openTwoFactorSettings(page);
      expect(await page.locator("[data-backup-codes-left]").count()).toBe(0);
      await Promise.all([
        page.waitForURL(onPath("/api/auth/two-factor/enroll")),
        page.click('button:has-text("Set up two-factor sign-in")'),
      ]);
      expect(await heading(page)).toBe("Set up two-factor sign-in");
      // The QR code is drawn in the page, and the key to type is shown under it.
      expect(await page.locator("svg").count()).toBeGreaterThan(0);
      const secret = await page.locator("[data-totp-secret]").getAttribute("data-totp-secret");
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);
      if (!secret) throw new Error("no secret on the set-up page");

      // A wrong first code leaves it off: the same page, with the same key, asks again.
      const enrolStep = totpStep(Date.now());
      const enrolCode = await totpCode(secret, enrolStep);
      await page.fill("#two-factor-code", enrolCode === "000000" ? "111111" : "000000");
      await Promise.all([page.waitForEvent("load"), page.click('button:has-text("Turn on")')]);
      expect(await heading(page)).toBe("Set up two-factor sign-in");
      await expect
        .poll(() => page.getByRole("alert").textContent())
        .toContain("That code is wrong");
      expect(await page.locator("[data-totp-secret]").getAttribute("data-totp-secret")).toBe(
        secret,
      );

      // The app's code turns it on; the backup codes are shown once.
      await page.fill("#two-factor-code", enrolCode);
      await Promise.all([page.waitForEvent("load"), page.click('button:has-text("Turn on")')]);
      expect(await heading(page)).toBe("Your backup codes");
      const backupCodes = await page.locator("[data-backup-codes] code").allTextContents();
      expect(backupCodes).toHaveLength(10);
      expect(new Set(backupCodes).size).toBe(10);
      await Promise.all([
        page.waitForURL(onPath("/api/auth/two-factor")),
        page.click('a:has-text("I saved them")'),
      ]);
      expect(await heading(page)).toBe("Two-factor sign-in");
      expect(await backupCodesLeft(page)).toBe(10);
      expect(await page.locator("[data-backup-codes]").count()).toBe(0);

      // Signed out, the password alone opens no session: the challenge page asks for a code.
      await backToSite(page);
      await tour.click(page, "sign-out");
      await expectSignedOut(page);
      await signInWithPassword(page, email, password);
      await page.waitForURL(onPath("/api/auth/two-factor/challenge"));
      expect(await heading(page)).toBe("Two-factor sign-in");
      expect(await sessionUser(page)).toBeNull();

      // The code that turned it on was spent: refused, and still no session.
      await page.fill("#two-factor-code", enrolCode);
      await Promise.all([page.waitForEvent("load"), page.click('button:has-text("Verify")')]);
      await expect
        .poll(() => page.getByRole("alert").textContent())
        .toContain("That code is wrong or was used already");
      expect(await sessionUser(page)).toBeNull();

      // The app's next code signs in, and the browser goes back home.
      const signInCode = await nextCode(secret, enrolStep);
      await page.fill("#two-factor-code", signInCode.code);
      await Promise.all([page.waitForURL(home()), page.click('button:has-text("Verify")')]);
      await expectSignedInAs(page, email);

      // Signed out again; this time a backup code instead of the app.
      await tour.click(page, "sign-out");
      await expectSignedOut(page);
      await signInWithPassword(page, email, password);
      await page.waitForURL(onPath("/api/auth/two-factor/challenge"));
      const [spent, ...unspent] = backupCodes as [string, ...string[]];
      await page.fill("#two-factor-backup-code", spent);
      await Promise.all([
        page.waitForURL(home()),
        page.click('button:has-text("Use the backup code")'),
      ]);
      await expectSignedInAs(page, email);

      // The settings page counts one code fewer.
      await openTwoFactorSettings(page);
      expect(await backupCodesLeft(page)).toBe(9);

      // A backup code works once: signed out, the same one is refused; another one signs in.
      await backToSite(page);
      await tour.click(page, "sign-out");
      await expectSignedOut(page);
      await signInWithPassword(page, email, password);
      await page.waitForURL(onPath("/api/auth/two-factor/challenge"));
      await page.fill("#two-factor-backup-code", spent);
      await Promise.all([
        page.waitForEvent("load"),
        page.click('button:has-text("Use the backup code")'),
      ]);
      await expect
        .poll(() => page.getByRole("alert").textContent())
        .toContain("That backup code is wrong or was used already");
      expect(await sessionUser(page)).toBeNull();
      await page.fill("#two-factor-backup-code", unspent[0] as string);
      await Promise.all([
        page.waitForURL(home()),
        page.click('button:has-text("Use the backup code")'),
      ]);
      await expectSignedInAs(page, email);
      await openTwoFactorSettings(page);
      expect(await backupCodesLeft(page)).toBe(8);

      // Turned off with the app's next code.
      const offCode = await nextCode(secret, signInCode.step);
      await page.fill("#two-factor-disable-code", offCode.code);
      await Promise.all([
        page.waitForEvent("load"),
        page.click('button:has-text("Turn off two-factor sign-in")'),
      ]);
      await expect
        .poll(() => page.getByRole("status").textContent())
        .toBe("Two-factor sign-in is off.");
      expect(await page.locator("[data-backup-codes-left]").count()).toBe(0);
      expect(await page.locator('button:has-text("Set up two-factor sign-in")').count()).toBe(1);

      // Signed out, the password alone signs in again.
      await backToSite(page);
      await tour.click(page, "sign-out");
      await expectSignedOut(page);
      await signInWithPassword(page, email, password);
      await page.waitForURL(home());
      await expectSignedInAs(page, email);

      // The QR code and every other page came from the app alone.
      expect(requests).toBeGreaterThan(20);
      expect(elsewhere).toEqual([]);
    });
  },
);
