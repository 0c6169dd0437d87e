/**
 * The password routes are a JSON API as well as pages: a JSON client (a JSON body, or `Accept:
 * application/json` without HTML) gets every refusal as JSON with a stable `error` value (the
 * route declaration's `jsonErrors`), never a redirect to an error page it cannot show; a form
 * post keeps the error page. A route for a provider of another type is refused before its action
 * loads (`providerTypes`).
 */
import { MemoryRevocationStore } from "@gatehousejs/core/revocation/memory";
import { describe, expect, test } from "vitest";
import { csrfToken, Jar, ORIGIN, send } from "./helpers.js";
import { OTHER_PASSWORD, PASSWORD, passwordWorld } from "./password-world.js";
import { twoIdps } from "./support/oauth-flow.js";
import { startOidcProvider } from "./support/oidc-server.js";

const OWNER = "owner@example.com";

async function expectJsonError(response: Response, error: string, status = 400) {
  expect(response.status).toBe(status);
  expect(response.headers.get("location")).toBeNull();
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  const body = (await response.json()) as { error: string; message: string };
  expect(body.error).toBe(error);
  expect(body.message).toEqual(expect.any(String));
  return body;
}

describe("a JSON client of the password routes", () => {
  test("without a CSRF token gets MissingCSRF as JSON; a form post still goes to the error page", async () => {
    const w = passwordWorld();
    const json = await send(w.config, new Jar(), "/auth/signup/password", {
      json: { email: OWNER, password: PASSWORD },
    });
    await expectJsonError(json, "MissingCSRF");
    const accepts = await send(w.config, new Jar(), "/auth/forgot-password/password", {
      form: { email: OWNER },
      headers: { accept: "application/json" },
    });
    await expectJsonError(accepts, "MissingCSRF");
    const form = await send(w.config, new Jar(), "/auth/signup/password", {
      form: { email: OWNER, password: PASSWORD },
    });
    expect(form.status).toBe(302);
    expect(form.headers.get("location")).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`);
    expect(await w.adapter.getUserByEmail(OWNER)).toBeNull();
  });

  test("with a wrong, used or expired reset link gets Verification as JSON", async () => {
    const w = passwordWorld();
    await w.verifiedUser(OWNER);
    const jar = new Jar();
    const response = await send(w.config, jar, "/auth/reset-password/password", {
      json: {
        csrfToken: await csrfToken(w.config, jar),
        token: "not-a-token",
        email: OWNER,
        password: OTHER_PASSWORD,
      },
    });
    const body = await expectJsonError(response, "Verification");
    // The sign-in page's words, never the server's own message.
    expect(body.message).toMatch(/no longer valid/);
    expect(body.message).not.toMatch(/reset link is wrong/);
    expect((await w.signIn(new Jar(), OWNER, PASSWORD)).headers.get("location")).toBe(ORIGIN);
  });

  test("securing an account another way in holds gets OAuthAccountNotLinked as JSON", async () => {
    const op = await startOidcProvider();
    try {
      const w = passwordWorld({
        providers: twoIdps(op),
        config: { session: { strategy: "jwt", revocation: { store: MemoryRevocationStore() } } },
        password: { requireEmailVerification: false },
      });
      // Signed in with the unconfirmed password, the sign-up's maker links an account of its own.
      const maker = new Jar();
      await w.signUp(maker, OWNER);
      await w.signIn(maker, OWNER);
      const { signInThrough } = await import("./support/oauth-flow.js");
      await signInThrough(w.config, maker, "idp");
      const user = (await w.adapter.getUserByEmail(OWNER))!;
      expect(await w.adapter.listAccountsByUserId(user.id)).toHaveLength(2);

      const other = new Jar();
      const link = w.lastLink(OWNER);
      const response = await send(w.config, other, "/auth/verify-email/password", {
        json: {
          csrfToken: await csrfToken(w.config, other),
          token: link.searchParams.get("token")!,
          email: OWNER,
          password: OTHER_PASSWORD,
        },
      });
      await expectJsonError(response, "OAuthAccountNotLinked");
    } finally {
      await op.close();
    }
  });

  test("a route for a provider that is not a password provider is a 400 InvalidProvider", async () => {
    const w = passwordWorld({ emailSignIn: true });
    for (const path of ["/auth/signup/email", "/auth/reset-password/email?token=t&email=a%40b.c"]) {
      await expectJsonError(await send(w.config, new Jar(), path), "InvalidProvider");
    }
    const jar = new Jar();
    const posted = await send(w.config, jar, "/auth/signup/email", {
      json: { csrfToken: await csrfToken(w.config, jar), email: OWNER, password: PASSWORD },
    });
    await expectJsonError(posted, "InvalidProvider");
    expect(await w.adapter.getUserByEmail(OWNER)).toBeNull();
  });
});
