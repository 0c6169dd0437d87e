/**
 * Step-up from `@gatehousejs/core/client`: for a user with two-factor sign-in on, the sensitive
 * actions (`changePassword`, `changeEmail`, `removePassword`, `revokeSessions` with
 * `{ others: true }` or `{ all: true }`) more than ten minutes after the sign-in reject with an
 * `AuthRouteError` that says `ReauthenticationRequired` (403) and carries `signInUrl`: the
 * sign-in page, with a `callbackUrl` back to the action's page and nothing else. Signing in again
 * (password and code) lets the action through. Driven against a real `Auth()` handler with the
 * password provider and two-factor sign-in on the memory adapter, the clock faked.
 */

import {
  AuthRouteError,
  changeEmail,
  changePassword,
  configureClient,
  confirmTwoFactor,
  enrollTwoFactor,
  removePassword,
  revokeSessions,
  signIn,
  signOut,
  verifyTwoFactor,
} from "@gatehousejs/core/client";
import TwoFactor from "@gatehousejs/core/two-factor";
import type { AuthConfig } from "@gatehousejs/core/types";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { totpCode, totpStep } from "../src/lib/features/two-factor/totp.js";
import { browserOn } from "./client-browser.js";
import { ORIGIN } from "./helpers.js";
import { OTHER_PASSWORD, PASSWORD, passwordWorld } from "./password-world.js";

const OWNER = "owner@example.com";
const AUTH = `${ORIGIN}/api/auth`;
const MESSAGE = "Sign in again to confirm it is you, then try again within ten minutes.";

/** A user with a password and two-factor sign-in on, signed in in the browser the client sees. */
async function enrolled(config: Partial<AuthConfig> = {}) {
  const w = passwordWorld({ config: { basePath: "/api/auth", twoFactor: TwoFactor(), ...config } });
  await w.verifiedUser(OWNER);
  const browser = browserOn(w.config);
  await signIn("password", { email: OWNER, password: PASSWORD, redirect: false });
  const { secret } = await enrollTwoFactor();
  await confirmTwoFactor(await totpCode(secret, totpStep()));
  return { w, browser, secret };
}

/** Eleven minutes pass: the sign-in is no longer recent enough for a sensitive action. */
const later = () => vi.setSystemTime(Date.now() + 11 * 60_000);

/** What `promise` rejected with, which must be an `AuthRouteError`. */
async function refusal(promise: Promise<unknown>): Promise<AuthRouteError> {
  const error = await promise.then(
    () => {
      throw new Error("expected a refusal");
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AuthRouteError);
  return error as AuthRouteError;
}

/** Checks a step-up refusal: 403, its message, and the sign-in page coming back to `back`. */
function expectStepUp(error: AuthRouteError, signInPage: string, back: string): void {
  expect(error).toMatchObject({ status: 403, error: "ReauthenticationRequired", detail: MESSAGE });
  expect(error.signInUrl).toBeDefined();
  const url = new URL(error.signInUrl!);
  expect(`${url.origin}${url.pathname}`).toBe(signInPage);
  expect([...url.searchParams.keys()]).toEqual(["callbackUrl"]);
  expect(url.searchParams.get("callbackUrl")).toBe(back);
  expect(url.hash).toBe("");
}

/** Every cookie value of the jar: none may appear in an error. */
const cookieValues = (browser: ReturnType<typeof browserOn>) => [...browser.jar.cookies.values()];

beforeEach(() => {
  configureClient({});
  vi.useFakeTimers({ toFake: ["Date"] });
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  configureClient({});
});

describe("a sensitive action long after the sign-in", () => {
  test("changePassword rejects with ReauthenticationRequired and the sign-in page; signing in again lets it through", async () => {
    const { browser, secret } = await enrolled();
    later();
    const error = await refusal(
      changePassword({ currentPassword: PASSWORD, newPassword: OTHER_PASSWORD }),
    );
    expectStepUp(error, `${AUTH}/signin`, `${AUTH}/change-password/password`);
    // The URL is a property, not part of the message; no cookie value is in either.
    expect(error.message).toBe(
      `The auth route answered 403 (ReauthenticationRequired) to the password change: ${MESSAGE}`,
    );
    const said = [error.message, error.signInUrl, JSON.stringify(error)].join("\n");
    for (const value of cookieValues(browser)) expect(said).not.toContain(value);

    // Nothing changed: the old password still signs in (held for the code, as before).
    await signOut({ redirect: false });
    const again = await signIn("password", { email: OWNER, password: PASSWORD, redirect: false });
    expect(again.twoFactorRequired).toBe(true);
    vi.setSystemTime(Date.now() + 30_000);
    await verifyTwoFactor({ code: await totpCode(secret, totpStep()) }, { redirect: false });

    const changed = await changePassword({
      currentPassword: PASSWORD,
      newPassword: OTHER_PASSWORD,
    });
    expect(changed).toMatchObject({ ok: true, status: "passwordChanged" });
  });

  test("changeEmail and removePassword: their own page as the callbackUrl", async () => {
    await enrolled();
    later();
    const email = await refusal(
      changeEmail({ newEmail: "new@example.com", currentPassword: PASSWORD }),
    );
    expectStepUp(email, `${AUTH}/signin`, `${AUTH}/change-email/password`);
    const removal = await refusal(removePassword({ currentPassword: PASSWORD }));
    expectStepUp(removal, `${AUTH}/signin`, `${AUTH}/remove-password/password`);
  });

  test("revokeSessions: { others } and { all } need it, back to the site; one session by id does not", async () => {
    const { browser } = await enrolled();
    later();
    for (const target of [{ others: true }, { all: true }] as const) {
      const error = await refusal(revokeSessions(target));
      expectStepUp(error, `${AUTH}/signin`, ORIGIN);
    }
    expect(browser.jar.cookies.get("authjs.session-token")).toBeTruthy();
    expect(await revokeSessions({ id: "0".repeat(32) })).toEqual({ revoked: 0 });
  });

  test("a custom sign-in page is the one named", async () => {
    await enrolled({ pages: { signIn: "/login" } });
    later();
    const error = await refusal(
      changePassword({ currentPassword: PASSWORD, newPassword: OTHER_PASSWORD }),
    );
    expectStepUp(error, `${ORIGIN}/login`, `${AUTH}/change-password/password`);
  });

  test("within ten minutes of the sign-in the action goes through, with no signInUrl to follow", async () => {
    await enrolled();
    vi.setSystemTime(Date.now() + 9 * 60_000);
    const changed = await changePassword({
      currentPassword: PASSWORD,
      newPassword: OTHER_PASSWORD,
    });
    expect(changed.status).toBe("passwordChanged");
    const wrong = await refusal(
      changePassword({ currentPassword: PASSWORD, newPassword: "yet another long passphrase" }),
    );
    expect(wrong).toMatchObject({ status: 400, error: "WrongPassword", signInUrl: undefined });
  });
});

describe("the signInUrl an answer carries", () => {
  /** The client's error for a 403 answer whose body holds `signInUrl`. */
  async function errorFor(signInUrl: unknown): Promise<AuthRouteError> {
    vi.stubGlobal("location", { href: `${ORIGIN}/account` });
    vi.stubGlobal(
      "fetch",
      vi.fn(async (input: string | URL | Request) =>
        String(input).endsWith("/csrf")
          ? Response.json({ csrfToken: "t" })
          : Response.json(
              { error: "ReauthenticationRequired", message: MESSAGE, signInUrl },
              {
                status: 403,
              },
            ),
      ),
    );
    return refusal(changePassword({ currentPassword: PASSWORD, newPassword: OTHER_PASSWORD }));
  }

  test("is kept only as an absolute http(s) URL", async () => {
    const page = `${AUTH}/signin?callbackUrl=${encodeURIComponent(`${ORIGIN}/account`)}`;
    expect((await errorFor(page)).signInUrl).toBe(page);
    for (const bad of ["javascript:alert(1)", "/api/auth/signin", "", 42, null, undefined]) {
      const error = await errorFor(bad);
      expect(error.error, String(bad)).toBe("ReauthenticationRequired");
      expect(error.signInUrl, String(bad)).toBeUndefined();
    }
  });
});
