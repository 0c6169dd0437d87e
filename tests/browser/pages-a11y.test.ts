/**
 * The built-in pages in real Chromium, for people who use a keyboard or a screen reader: after a
 * failed sign-in, a wrong code or an expired sign-out form the error has the focus and titles the
 * page; each form's fields are a named group; the code field's pattern compiles; no page logs a
 * console error or warning (a CSP violation would). (Headless Chromium fetches no icons, so the
 * page icon is checked in packages/core/test/pages.test.ts.)
 */
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import Credentials from "@gatehousejs/core/providers/credentials";
import Email from "@gatehousejs/core/providers/email";
import type { AuthConfig } from "@gatehousejs/core/types";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { chromiumPath, launch } from "./chromium.js";
import { startServer, type TestServer } from "./server.js";

describe.skipIf(!chromiumPath)("built-in pages in Chromium", { timeout: 60_000 }, () => {
  const codes: string[] = [];
  const config: AuthConfig = {
    secret: "browser-test-secret-0123456789abcdef",
    trustHost: true,
    adapter: MemoryAdapter(),
    session: { strategy: "jwt" },
    providers: [
      Email({
        code: true,
        sendVerificationRequest: ({ code }) => {
          if (code) codes.push(code);
        },
      }),
      Credentials({
        credentials: { email: { label: "Email", type: "email" }, password: { type: "password" } },
        authorize: ({ email, password }) =>
          email === "ada@example.com" && password === "right"
            ? { id: "ada", email: "ada@example.com" }
            : null,
      }),
    ],
    logger: { warn: () => {}, error: () => {} },
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

  /** A fresh browser whose console errors and warnings and page errors are recorded. */
  async function watchedPage() {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") {
        problems.push(`${message.type()}: ${message.text()}`);
      }
    });
    page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
    return { page, problems, close: () => context.close() };
  }

  /** As a person gets there: the site's home page, then a click on its link. */
  async function openFromHome(page: Page, link: string, target: RegExp) {
    if (page.url() !== `${server.origin}/`) await page.goto(`${server.origin}/`);
    await Promise.all([page.waitForURL(target), page.click(link)]);
  }

  const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? "");

  test("a failed sign-in: the error has the focus and titles the page, the fields are invalid", async () => {
    const { page, problems, close } = await watchedPage();
    try {
      await openFromHome(page, "#sign-in", /\/auth\/signin$/);
      expect(await page.title()).toBe("Sign In");
      await page.fill("#input-email-for-credentials-provider", "ada@example.com");
      await page.fill("#input-password-for-credentials-provider", "wrong");
      await Promise.all([
        page.waitForURL(/error=CredentialsSignin/),
        page.click('button:has-text("Sign in with Credentials")'),
      ]);
      expect(await focusedId(page)).toBe("error");
      expect(await page.title()).toBe("Error: Sign In");
      const password = page.locator("#input-password-for-credentials-provider");
      expect(await password.getAttribute("aria-invalid")).toBe("true");
      expect(await password.getAttribute("aria-describedby")).toBe("error");
      expect(await page.locator("#error").textContent()).toMatch(/Sign in failed/);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  test("the two Email fields are told apart by their groups", async () => {
    const { page, problems, close } = await watchedPage();
    try {
      await openFromHome(page, "#sign-in", /\/auth\/signin$/);
      expect(await page.getByRole("textbox", { name: "Email" }).count()).toBe(2);
      for (const group of ["Sign in with Email", "Sign in with Credentials"]) {
        const fields = page.getByRole("group", { name: group }).getByRole("textbox", {
          name: "Email",
        });
        expect(await fields.count()).toBe(1);
      }
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  test("a wrong code: the pattern works, the error has the focus, the code field is invalid", async () => {
    const { page, problems, close } = await watchedPage();
    try {
      await openFromHome(page, "#sign-in", /\/auth\/signin$/);
      await page.fill("#input-email-for-email-provider", "ada@example.com");
      await Promise.all([
        page.waitForURL(/\/auth\/verify-request/),
        page.click('button:has-text("Sign in with Email")'),
      ]);
      const input = page.locator("#input-code");
      const mismatch = (value: string) =>
        input.evaluate((el, v) => {
          const field = el as HTMLInputElement;
          field.value = v;
          return field.validity.patternMismatch;
        }, value);
      // A pattern the browser cannot compile is ignored: letters would pass.
      expect(await mismatch("12a45678")).toBe(true);
      expect(await mismatch("1234 5678")).toBe(false);
      const right = codes.at(-1) ?? "";
      const wrong = right.replace(/\d$/, (d) => String((Number(d) + 1) % 10));
      await input.fill(wrong);
      await Promise.all([
        page.waitForURL(/code=wrong_code/),
        page.click('button:has-text("Sign in with code")'),
      ]);
      expect(await focusedId(page)).toBe("error");
      expect(await page.title()).toBe("Error: Verify Request");
      expect(await page.locator("#input-code").getAttribute("aria-invalid")).toBe("true");
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  test("an expired sign-out form says so, takes the focus, and its retry signs out", async () => {
    const { page, problems, close } = await watchedPage();
    try {
      await openFromHome(page, "#sign-in", /\/auth\/signin$/);
      await page.fill("#input-email-for-credentials-provider", "ada@example.com");
      await page.fill("#input-password-for-credentials-provider", "right");
      await Promise.all([
        page.waitForURL(`${server.origin}/`),
        page.click('button:has-text("Sign in with Credentials")'),
      ]);
      await openFromHome(page, "#sign-out", /\/auth\/signout$/);
      // The form's token no longer matches its cookie, as after the cookie was replaced.
      await page.locator('input[name="csrfToken"]').evaluate((el) => {
        (el as HTMLInputElement).value = "0".repeat(64);
      });
      await Promise.all([
        page.waitForURL(/\/auth\/signout\?error=MissingCSRF/),
        page.click('button:has-text("Sign out")'),
      ]);
      expect(await page.locator("#error").textContent()).toBe(
        "The sign out form expired. Please try again.",
      );
      expect(await focusedId(page)).toBe("error");
      expect(await page.title()).toBe("Error: Sign Out");
      await Promise.all([
        page.waitForURL(`${server.origin}/`),
        page.click('button:has-text("Sign out")'),
      ]);
      const session = await page.evaluate(async () => (await fetch("/auth/session")).json());
      expect(session).toBeNull();
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });
});
