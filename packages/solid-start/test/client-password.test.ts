/**
 * Password accounts from `@gatehousejs/solid-start/client`: core's functions, re-exported, against
 * a real SolidAuth handler with the password provider on the memory adapter and its email
 * captured; `signIn("password")` through this package's `signIn`, and `createSession` following
 * a reset that signed the browser in without navigating.
 */
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import * as core from "@gatehousejs/core/client";
import {
  AuthRouteError,
  changeEmail,
  changePassword,
  configureClient,
  createSession,
  readPasswordResetLink,
  removePassword,
  requestPasswordReset,
  resetPassword,
  setPassword,
  signIn,
  signOut,
  signUp,
} from "@gatehousejs/solid-start/client";
import Password, { type PasswordEmail } from "@gatehousejs/solid-start/providers/password";
import { createRoot } from "solid-js";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { fakeBrowser } from "./fake-browser.js";
import { credentialsConfig, ORIGIN, SESSION_COOKIE } from "./support.js";

// The client runs in browsers: solid-js's browser builds (see client.test.ts).
vi.mock("solid-js", () => import("solid-js/dist/solid.js"));
vi.mock("solid-js/web", () => import("solid-js/web/dist/web.js"));

const EMAIL = "ada@example.com";
const PASSWORD = "correct horse battery staple";
const NEW_PASSWORD = "a brand new passphrase for me";
const LAST_PASSWORD = "yet another long passphrase";

beforeEach(() => {
  configureClient({});
});

afterEach(() => {
  vi.unstubAllGlobals();
  configureClient({});
});

/** The password provider on the memory adapter, its email captured (cheap scrypt). */
function passwordApp() {
  const mails: PasswordEmail[] = [];
  const config = credentialsConfig({
    adapter: MemoryAdapter(),
    providers: [
      Password({
        hash: { N: 1024, r: 8, p: 1 },
        sendEmail: (email) => {
          mails.push(email);
        },
      }),
    ],
  });
  const lastMail = (kind: PasswordEmail["kind"]) => {
    const mail = mails.filter((m) => m.kind === kind).at(-1);
    if (!mail) throw new Error(`No ${kind} email`);
    return mail;
  };
  return { config, mails, lastMail };
}

/** Opens an emailed link in the current fake browser and presses its page's button. */
async function openAndConfirm(url: string): Promise<Response> {
  const html = await (await fetch(url)).text();
  const form = /<form method="post" action="([^"]*)">([\s\S]*?)<\/form>/.exec(html);
  if (!form) throw new Error("The page has no form");
  const fields = new URLSearchParams();
  for (const [, name = "", value = ""] of form[2]!.matchAll(
    /<input type="hidden" name="([^"]*)" value="([^"]*)">/g,
  )) {
    fields.set(name, value.replaceAll("&amp;", "&").replaceAll("&quot;", '"'));
  }
  return fetch(form[1]!.replaceAll("&amp;", "&"), {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: fields.toString(),
  });
}

test("the password functions are core's, re-exported", () => {
  expect(signUp).toBe(core.signUp);
  expect(requestPasswordReset).toBe(core.requestPasswordReset);
  expect(resetPassword).toBe(core.resetPassword);
  expect(changePassword).toBe(core.changePassword);
  expect(readPasswordResetLink).toBe(core.readPasswordResetLink);
  expect(changeEmail).toBe(core.changeEmail);
  expect(setPassword).toBe(core.setPassword);
  expect(removePassword).toBe(core.removePassword);
  expect(AuthRouteError).toBe(core.AuthRouteError);
});

describe("a password account from a Solid app", () => {
  test("sign up, confirm, sign in with signIn('password'), reset, change", async () => {
    const app = passwordApp();
    const browser = fakeBrowser(app.config);

    const short = await signUp({ email: EMAIL, password: "too short" }).catch((e: unknown) => e);
    expect(short).toBeInstanceOf(AuthRouteError);
    expect(short).toMatchObject({ status: 400, error: "PasswordTooShort" });
    expect((short as AuthRouteError).detail).toMatch(/^Use at least 15 characters/);
    expect(String(short)).not.toContain("too short");

    expect(await signUp({ email: EMAIL, password: PASSWORD })).toMatchObject({
      ok: true,
      status: "verificationSent",
    });
    const post = browser.sent.at(-1)!;
    expect(`${post.method} ${post.url.pathname}`).toBe("POST /api/auth/signup/password");
    expect(post.headers.get("content-type")).toBe("application/json");
    expect(post.headers.get("x-auth-return-redirect")).toBe("1");

    await openAndConfirm(app.lastMail("verifyEmail").url);
    expect(browser.jar.get(SESSION_COOKIE)).toBeTruthy();
    await signOut({ redirect: false });
    const signedIn = await signIn("password", {
      email: EMAIL,
      password: PASSWORD,
      redirect: false,
    });
    expect(signedIn).toMatchObject({ ok: true, url: `${ORIGIN}/start` });
    expect(browser.sent.at(-1)!.url.pathname).toBe("/api/auth/callback/password");
    await signOut({ redirect: false });

    // The reset signs this browser in without navigating: the session signals follow.
    await createRoot(async (dispose) => {
      const auth = createSession();
      await vi.waitFor(() => expect(auth.status()).toBe("unauthenticated"));
      expect(await requestPasswordReset(EMAIL)).toMatchObject({ ok: true, status: "resetSent" });
      const link = readPasswordResetLink(app.lastMail("resetPassword").url)!;
      const reset = await resetPassword(
        { token: link.token, email: link.email, password: NEW_PASSWORD },
        { callbackUrl: "/account" },
      );
      expect(reset).toEqual({ ok: true, url: `${ORIGIN}/account` });
      await vi.waitFor(() => expect(auth.session()?.user?.email).toBe(EMAIL));
      expect(browser.navigations).toEqual([]);
      dispose();
    });

    const changed = await changePassword({
      currentPassword: NEW_PASSWORD,
      newPassword: LAST_PASSWORD,
    });
    expect(changed).toMatchObject({ ok: true, status: "passwordChanged" });
    await signOut({ redirect: false });
    expect(
      (await signIn("password", { email: EMAIL, password: NEW_PASSWORD, redirect: false })).error,
    ).toBe("CredentialsSignin");
    expect(
      (await signIn("password", { email: EMAIL, password: LAST_PASSWORD, redirect: false })).ok,
    ).toBe(true);
  });
});
