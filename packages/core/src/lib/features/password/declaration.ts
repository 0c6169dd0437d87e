/**
 * The password sign-in method as `Password()` carries it (../../feature.ts, `providerMethod`):
 * only the provider's module imports this, so an app without a password provider bundles none
 * of the method's code.
 *
 * `signInPageBlock` is the provider's form on the built-in sign-in page (address, password, and
 * the links to sign up and to reset a forgotten password). The sign-in page does not ask a
 * method for a whole block yet: `MethodDeclaration.signInPageHtml` is called for WebAuthn blocks
 * only, and without the page's CSRF token; until lib/pages/signin.ts asks for this (its default
 * case), the password provider has no form there.
 */
import type { MethodDeclaration } from "../../feature.js";
import type { InternalProvider } from "../../types/internal.js";
import { renderPasswordSignInForm } from "./sign-in-form.js";

/** What the sign-in page knows when it renders a provider's form. */
export interface SignInFormContext {
  csrfToken: string;
  callbackUrl?: string;
  /** Prefill of the address (`?email=`). Untrusted. */
  email?: string;
  /** The kind of form the page's error is about (`credentials` after a wrong password). */
  invalid?: string;
}

/** The password provider's block of the built-in sign-in page. */
export function passwordSignInBlock(provider: InternalProvider, form: SignInFormContext): string {
  // The callback URL is `<authUrl>/callback/<id>`: the other routes sit beside it.
  const authUrl = provider.callbackUrl.slice(0, provider.callbackUrl.lastIndexOf("/callback/"));
  const id = encodeURIComponent(provider.id);
  return renderPasswordSignInForm({
    providerId: provider.id,
    providerName: provider.name,
    action: provider.callbackUrl,
    csrfToken: form.csrfToken,
    ...(form.callbackUrl ? { callbackUrl: form.callbackUrl } : {}),
    ...(form.email ? { email: form.email } : {}),
    invalid: form.invalid === "credentials",
    signUpUrl: `${authUrl}/signup/${id}`,
    forgotUrl: `${authUrl}/forgot-password/${id}`,
  });
}

export const passwordDeclaration: MethodDeclaration & {
  signInPageBlock: typeof passwordSignInBlock;
} = {
  types: ["password"],
  load: async () => (await import("./method.js")).passwordMethod,
  signInPageBlock: passwordSignInBlock,
};
