/**
 * The password provider's form for the built-in sign-in page, as the provider carries it
 * (`signInPageBlock` on its method declaration): labelled address and password, the links to sign
 * up and to reset a forgotten password, the page's error marked on its fields, no script, and a
 * form that signs in when posted; and the built-in sign-in page (GET /signin), which asks the
 * provider's carried method for the block, shows it beside the other providers' forms.
 */
import Password from "@gatehousejs/core/providers/password";
import { describe, expect, test } from "vitest";
import { carriedMethod } from "../src/lib/feature.js";
import type { SignInFormContext } from "../src/lib/features/password/declaration.js";
import { hiddenFields, INVALID_FIELD } from "../src/lib/pages/shell.js";
import type { InternalProvider } from "../src/lib/types/internal.js";
import { Jar, ORIGIN, send } from "./helpers.js";
import { PASSWORD, passwordWorld } from "./password-world.js";
import { formOf } from "./support/email-link.js";

type Block = (provider: InternalProvider, form: SignInFormContext) => string;

function blockOf(provider: ReturnType<typeof Password>): (form: SignInFormContext) => string {
  const declared = carriedMethod(provider) as { signInPageBlock?: Block } | undefined;
  const block = declared?.signInPageBlock;
  if (!block) throw new Error("The password provider carries no sign-in form");
  const internal = {
    ...provider,
    signinUrl: `${ORIGIN}/auth/signin/${provider.id}`,
    callbackUrl: `${ORIGIN}/auth/callback/${provider.id}`,
  } as unknown as InternalProvider;
  return (form) => block(internal, form);
}

describe("the sign-in form of a password provider", () => {
  test("labelled fields, the page's hidden fields, and links to sign up and reset", () => {
    const html = blockOf(Password({ sendEmail: () => {} }))({
      csrfToken: "csrf-token",
      callbackUrl: `${ORIGIN}/dashboard`,
    });
    expect(html).toContain(`<form method="post" action="${ORIGIN}/auth/callback/password">`);
    expect(html).toContain(hiddenFields("csrf-token", `${ORIGIN}/dashboard`));
    expect(html).toContain('<legend class="visually-hidden">Sign in with Password</legend>');
    expect(html).toMatch(/<label for="input-email-for-password-provider">Email<\/label>/);
    expect(html).toMatch(/id="input-email-for-password-provider"[^>]*autocomplete="username"/);
    expect(html).toMatch(/<label for="input-password-for-password-provider">Password<\/label>/);
    expect(html).toMatch(
      /id="input-password-for-password-provider"[^>]*autocomplete="current-password"/,
    );
    expect(html).toContain(`href="${ORIGIN}/auth/forgot-password/password"`);
    expect(html).toContain(`href="${ORIGIN}/auth/signup/password"`);
    expect(html).not.toContain("<script");
    expect(html).not.toContain("aria-invalid");
  });

  test("after a wrong password both fields are marked, as the page's other forms are", () => {
    const html = blockOf(Password({ sendEmail: () => {} }))({
      csrfToken: "t",
      invalid: "credentials",
    });
    expect(html.split(INVALID_FIELD)).toHaveLength(3);
    const other = blockOf(Password({ sendEmail: () => {} }))({ csrfToken: "t", invalid: "email" });
    expect(other).not.toContain(INVALID_FIELD);
  });

  test("untrusted values are escaped; a provider of another id links its own routes", () => {
    const html = blockOf(Password({ id: "staff", name: 'Staff <"a">', sendEmail: () => {} }))({
      csrfToken: "t",
      email: '"><script>alert(1)</script>',
    });
    expect(html).not.toContain("<script>");
    expect(html).toContain('value="&quot;&gt;&lt;script&gt;');
    expect(html).toContain("Sign in with Staff &lt;&quot;a&quot;&gt;");
    expect(html).toContain(`action="${ORIGIN}/auth/callback/staff"`);
    expect(html).toContain(`href="${ORIGIN}/auth/forgot-password/staff"`);
    expect(html).toContain(`href="${ORIGIN}/auth/signup/staff"`);
  });

  test("posted as a browser would, the form signs in", async () => {
    const w = passwordWorld();
    await w.verifiedUser("owner@example.com");
    const jar = new Jar();
    const { csrfToken } = await import("./helpers.js");
    const html = blockOf(w.provider)({ csrfToken: await csrfToken(w.config, jar) });
    const { action, fields } = formOf(html);
    const response = await send(w.config, jar, new URL(action).pathname, {
      form: { ...fields, email: "owner@example.com", password: PASSWORD },
    });
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(await w.signedInAs(jar)).toBe("owner@example.com");
  });

  test("the built-in sign-in page shows the form with its CSRF token, and posting it signs in", async () => {
    const w = passwordWorld();
    await w.verifiedUser("owner@example.com");
    const jar = new Jar();
    const page = await send(w.config, jar, "/auth/signin");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(`action="${ORIGIN}/auth/callback/password"`);
    expect(html).toContain(`href="${ORIGIN}/auth/signup/password"`);
    const { action, fields } = formOf(
      html.slice(html.indexOf(`action="${ORIGIN}/auth/callback/password"`) - 40),
    );
    expect(fields.csrfToken).toMatch(/^[0-9a-f]{64}$/);
    const response = await send(w.config, jar, new URL(action).pathname, {
      form: { ...fields, email: "owner@example.com", password: PASSWORD },
    });
    expect(response.status).toBe(302);
    expect(await w.signedInAs(jar)).toBe("owner@example.com");
  });
});
