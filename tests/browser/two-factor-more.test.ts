/**
 * Two-factor sign-in in the SolidStart example beyond codes (tests/browser/two-factor.test.ts has
 * enrolment, codes, backup codes and turning it off): a passkey at the challenge in place of the
 * code, a trusted browser that skips the challenge until it is forgotten, and the fresh sign-in
 * that changing the password asks for. Real Chromium, a virtual authenticator over CDP, and the
 * demo as a person uses it: after the first address, every page is reached by clicking.
 *
 * The demo runs in its own process, so its clock cannot be moved: the stale sign-in of the last
 * test is the browser's own session cookie sealed again with the app's secret (which the test
 * gives the app) and a sign-in time eleven minutes back, every other claim kept.
 */
import { randomBytes } from "node:crypto";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Demo } from "../../examples/solid-start/scripts/demo.mjs";
import { decode, encode } from "../../packages/core/src/jwt.js";
import { totpCode, totpStep } from "../../packages/core/src/lib/features/two-factor/totp.js";
import { addVirtualAuthenticator, chromiumPath, launch } from "./chromium.js";
import { removeDataDir, startExample } from "./example-app.js";
import * as mailbox from "./mailbox.js";
import { Tour } from "./tour.js";

/** A password account with two-factor sign-in on, as the set-up pages left it. */
interface Enrolled {
  email: string;
  password: string;
  /** The authenticator app's key, read from the set-up page. */
  secret: string;
  backupCodes: string[];
  /** The last time step whose code the server accepted. */
  lastStep: number;
}

describe.skipIf(!chromiumPath)(
  "two-factor sign-in in the SolidStart example: passkeys, trusted browsers, step-up",
  { timeout: 240_000 },
  () => {
    const secret = randomBytes(32).toString("base64url");
    let app: Demo & { dataDir: string };
    let browser: Browser;
    let tour: Tour;
    const contexts: BrowserContext[] = [];

    beforeAll(async () => {
      [app, browser] = await Promise.all([
        startExample({ env: { AUTH_SECRET: secret } }),
        launch(),
      ]);
      tour = new Tour(new URL(app.url).origin);
    }, 300_000);
    afterAll(async () => {
      await browser?.close();
      await app?.close();
      if (app) removeDataDir(app.dataDir);
    });

    /** A fresh browser profile (no cookies), optionally with a virtual passkey authenticator. */
    async function newPage(options: { authenticator?: boolean } = {}): Promise<Page> {
      const context = await browser.newContext();
      contexts.push(context);
      const page = await context.newPage();
      if (options.authenticator) await addVirtualAuthenticator(context, page);
      return page;
    }

    const home = () => `${app.url}/`;
    const status = (page: Page) => page.getByTestId("session-status");
    const field = (name: string) => `#input-${name}-for-password-provider`;
    const onPath = (path: string) => (url: URL) => url.pathname === path;
    const heading = (page: Page) => page.locator("h1").textContent();
    const trustedBrowsers = (page: Page) => page.locator("[data-trusted-browser]");

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

    /** From the home page, signed in: "Sign out". */
    async function signOut(page: Page): Promise<void> {
      await tour.click(page, "sign-out");
      await expectSignedOut(page);
    }

    /** On the built-in sign-in page: the password form, submitted. */
    async function submitPassword(page: Page, user: Enrolled): Promise<void> {
      await page.fill(field("email"), user.email);
      await page.fill(field("password"), user.password);
      await Promise.all([
        page.waitForEvent("load"),
        page.click('button:has-text("Sign in with Password account")'),
      ]);
    }

    /** From the home page, signed out: "Sign in", the password form, submitted. */
    async function signInWithPassword(page: Page, user: Enrolled): Promise<void> {
      await tour.click(page, "sign-in-link");
      await page.waitForURL(onPath("/api/auth/signin"));
      await submitPassword(page, user);
    }

    /** Waits for the challenge page, and checks that no session exists yet. */
    async function expectChallenge(page: Page): Promise<void> {
      await page.waitForURL(onPath("/api/auth/two-factor/challenge"));
      expect(await heading(page)).toBe("Two-factor sign-in");
      expect(await sessionUser(page)).toBeNull();
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
     * The authenticator app: the code of a step after the last one used (the server accepts no
     * step twice) and within one step of now, waiting for the clock when it must. Records it.
     */
    async function nextCode(user: Enrolled): Promise<string> {
      while (totpStep(Date.now()) < user.lastStep) {
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      user.lastStep = Math.max(user.lastStep + 1, totpStep(Date.now()));
      return totpCode(user.secret, user.lastStep);
    }

    /**
     * A new password account, made from the home page and confirmed by the mailed link, with
     * two-factor sign-in set up from Account's link. Ends on the home page, signed in.
     */
    async function enrolledUser(page: Page, name: string): Promise<Enrolled> {
      const email = `${name}-${Date.now()}@example.com`;
      const password = `${name} keeps a second key by the door`;
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

      await openTwoFactorSettings(page);
      await Promise.all([
        page.waitForURL(onPath("/api/auth/two-factor/enroll")),
        page.click('button:has-text("Set up two-factor sign-in")'),
      ]);
      const key = await page.locator("[data-totp-secret]").getAttribute("data-totp-secret");
      if (!key) throw new Error("no key on the set-up page");
      const user: Enrolled = { email, password, secret: key, backupCodes: [], lastStep: 0 };
      await page.fill("#two-factor-code", await nextCode(user));
      await Promise.all([page.waitForEvent("load"), page.click('button:has-text("Turn on")')]);
      expect(await heading(page)).toBe("Your backup codes");
      user.backupCodes = await page.locator("[data-backup-codes] code").allTextContents();
      expect(user.backupCodes).toHaveLength(10);
      await Promise.all([
        page.waitForURL(onPath("/api/auth/two-factor")),
        page.click('a:has-text("I saved them")'),
      ]);
      expect(
        await page.locator("[data-backup-codes-left]").getAttribute("data-backup-codes-left"),
      ).toBe("10");
      await Promise.all([page.waitForURL(home()), page.click('a:has-text("Back to the site")')]);
      await tour.look(page);
      await expectSignedInAs(page, email);
      return user;
    }

    test("a passkey added on the profile page answers the challenge in place of the code", async () => {
      const page = await newPage({ authenticator: true });
      const user = await enrolledUser(page, "grace");

      // Profile → "Add a passkey": the virtual authenticator makes one for this account.
      await tour.click(page, "nav-profile");
      await page.waitForURL(`${app.url}/profile`);
      await tour.click(page, "passkey-add");
      await expect
        .poll(() => page.getByTestId("passkey-message").textContent())
        .toBe("Passkey added: next time, sign in with it.");

      // Signed out, the password stops at the challenge, which offers the passkey (sign-in only).
      await tour.click(page, "nav-home");
      await page.waitForURL(home());
      await signOut(page);
      await signInWithPassword(page, user);
      await expectChallenge(page);
      expect(await page.locator('button:has-text("Use a passkey")').count()).toBe(1);
      expect(await page.locator("#registerButton-passkey").count()).toBe(0);

      // "Use a passkey": signed in without a code, and home again. The passkey answered the
      // password's sign-in, which keeps its provider: this is not a separate passkey sign-in.
      await Promise.all([page.waitForURL(home()), page.click('button:has-text("Use a passkey")')]);
      await tour.look(page);
      await expectSignedInAs(page, user.email);
      expect(await page.getByTestId("session-method").textContent()).toBe("Password account");
    });

    test("a trusted browser skips the challenge until it is forgotten, one by one or all at once", async () => {
      const page = await newPage();
      const user = await enrolledUser(page, "ada");
      await openTwoFactorSettings(page);
      expect(await trustedBrowsers(page).count()).toBe(0);
      await backToSite(page);
      await signOut(page);

      // The code, with "Don't ask again on this browser for 30 days" ticked.
      await signInWithPassword(page, user);
      await expectChallenge(page);
      await page.check("#two-factor-trust");
      await page.fill("#two-factor-code", await nextCode(user));
      await Promise.all([page.waitForURL(home()), page.click('button:has-text("Verify")')]);
      await expectSignedInAs(page, user.email);

      // Signed out and in again: the password alone, no challenge.
      await signOut(page);
      await signInWithPassword(page, user);
      await page.waitForURL(home());
      await expectSignedInAs(page, user.email);

      // The settings list this browser; "Forget" ends its trust.
      await openTwoFactorSettings(page);
      expect(await trustedBrowsers(page).count()).toBe(1);
      expect(await trustedBrowsers(page).textContent()).toContain("(this browser)");
      await Promise.all([
        page.waitForEvent("load"),
        trustedBrowsers(page).locator('button:has-text("Forget")').click(),
      ]);
      expect(await trustedBrowsers(page).count()).toBe(0);

      // Asked again; this time a backup code, trusting the browser once more.
      await backToSite(page);
      await signOut(page);
      await signInWithPassword(page, user);
      await expectChallenge(page);
      await page.fill("#two-factor-backup-code", user.backupCodes[0] as string);
      await page.check("#two-factor-trust-backup");
      await Promise.all([
        page.waitForURL(home()),
        page.click('button:has-text("Use the backup code")'),
      ]);
      await expectSignedInAs(page, user.email);
      await signOut(page);
      await signInWithPassword(page, user);
      await page.waitForURL(home());
      await expectSignedInAs(page, user.email);

      // "Forget all": the list is empty, and the next sign-in is asked again.
      await openTwoFactorSettings(page);
      expect(await trustedBrowsers(page).count()).toBe(1);
      await Promise.all([page.waitForEvent("load"), page.click('button:has-text("Forget all")')]);
      expect(await trustedBrowsers(page).count()).toBe(0);
      await backToSite(page);
      await signOut(page);
      await signInWithPassword(page, user);
      await expectChallenge(page);

      // Trusted once more (another backup code); "Your sessions" lists it and forgets it too.
      await page.fill("#two-factor-backup-code", user.backupCodes[1] as string);
      await page.check("#two-factor-trust-backup");
      await Promise.all([
        page.waitForURL(home()),
        page.click('button:has-text("Use the backup code")'),
      ]);
      await expectSignedInAs(page, user.email);
      await tour.click(page, "nav-sessions");
      await page.waitForURL(`${app.url}/sessions`);
      const listed = page.getByTestId("trusted-browser-row");
      await expect.poll(() => listed.count()).toBe(1);
      expect(await listed.getByTestId("trusted-browser-current").count()).toBe(1);
      expect(await listed.getByTestId("trusted-browser-details").textContent()).toMatch(
        /^Trusted since .+, until .+/,
      );
      await tour.click(page, "trusted-browser-forget");
      await expect
        .poll(() => page.getByTestId("trusted-browsers-message").textContent())
        .toBe("That browser will be asked for a code again.");
      await expect.poll(() => listed.count()).toBe(0);
      expect(await page.getByTestId("trusted-browsers-none").count()).toBe(1);
      await tour.click(page, "nav-home");
      await page.waitForURL(home());
      await signOut(page);
      await signInWithPassword(page, user);
      await expectChallenge(page);
    });

    test("changing the password after ten minutes asks to sign in again, with the code; then it is changed", async () => {
      const page = await newPage();
      const user = await enrolledUser(page, "katherine");

      // The browser's session, as if its sign-in were eleven minutes old (see the module
      // comment): the same session id and user, only the sign-in time moved back.
      const [cookie, ...more] = (await page.context().cookies()).filter((c) =>
        c.name.endsWith("session-token"),
      );
      if (!cookie) throw new Error("no session cookie");
      expect(more).toEqual([]);
      const token = await decode({ token: cookie.value, secret, salt: cookie.name });
      expect(typeof token?.auth_time).toBe("number");
      const stale = Math.floor(Date.now() / 1000) - 11 * 60;
      const aged = await encode({
        token: { ...token, auth_time: stale },
        secret,
        salt: cookie.name,
      });
      await page.context().addCookies([{ ...cookie, value: aged }]);
      await page.reload();
      await tour.look(page);
      await expectSignedInAs(page, user.email);

      // Home → Change password: refused, with the route's words and a way to sign in again.
      await tour.click(page, "home-change-password");
      await page.waitForURL(`${app.url}/change-password`);
      const newPassword = "a fresher passphrase for katherine";
      await page.getByTestId("change-password-current").fill(user.password);
      await page.getByTestId("change-password-new").fill(newPassword);
      const [refusal] = await Promise.all([
        page.waitForResponse(
          (r) => r.request().method() === "POST" && /change-password/.test(r.url()),
        ),
        tour.click(page, "change-password-submit"),
      ]);
      expect(refusal.status()).toBe(403);
      const refused = (await refusal.json()) as { error?: string; signInUrl?: string };
      expect(refused.error).toBe("ReauthenticationRequired");
      expect(new URL(refused.signInUrl ?? "", app.url).pathname).toBe("/api/auth/signin");
      await expect
        .poll(() => page.getByTestId("change-password-message").textContent())
        .toBe("Sign in again to confirm it is you, then try again within ten minutes.");

      // "Sign in again": the password, then the challenge's code, back on the page.
      await tour.click(page, "change-password-sign-in-again");
      await page.waitForURL(
        (url) =>
          url.pathname === "/api/auth/signin" &&
          url.searchParams.get("callbackUrl") === "/change-password",
      );
      await submitPassword(page, user);
      await page.waitForURL(onPath("/api/auth/two-factor/challenge"));
      await page.fill("#two-factor-code", await nextCode(user));
      await Promise.all([
        page.waitForURL(`${app.url}/change-password`),
        page.click('button:has-text("Verify")'),
      ]);
      await tour.look(page);

      // Now the change is made.
      await page.getByTestId("change-password-current").fill(user.password);
      await page.getByTestId("change-password-new").fill(newPassword);
      await tour.click(page, "change-password-submit");
      await expect
        .poll(() => page.getByTestId("change-password-message").textContent())
        .toContain("Your password was changed");
      expect(await page.getByTestId("change-password-sign-in-again").count()).toBe(0);

      // Signed out, the new password leads to the challenge; the old one does not.
      await tour.click(page, "nav-home");
      await page.waitForURL(home());
      await signOut(page);
      await signInWithPassword(page, user);
      expect(new URL(page.url()).pathname).toBe("/api/auth/signin");
      expect(await sessionUser(page)).toBeNull();
      await page.fill(field("email"), user.email);
      await page.fill(field("password"), newPassword);
      await Promise.all([
        page.waitForEvent("load"),
        page.click('button:has-text("Sign in with Password account")'),
      ]);
      await expectChallenge(page);
    });
  },
);
