/**
 * The password sign-in method as `Password()` carries it (../../feature.ts, `providerMethod`):
 * only the provider's module imports this, so an app without a password provider bundles none
 * of the method's code.
 *
 * `signInPageBlock` is the provider's form on the built-in sign-in page (address, password, and
 * the links to sign up and to reset a forgotten password), which the page asks the carried
 * method for (lib/pages/signin.ts, its default case).
 */
import type { MethodDeclaration, SignInPageForm } from "../../feature.js";
import type { InternalProvider } from "../../types/internal.js";
import { renderPasswordSignInForm } from "./sign-in-form.js";

/** What the sign-in page knows when it renders a provider's form. */
export type SignInFormContext = SignInPageForm;

/** The password provider's block of the built-in sign-in page. */
export function passwordSignInBlock(provider: InternalProvider, form: SignInFormContext): string {
  // The callback URL is `<authUrl>/callback/<id>`: the other routes sit beside it. The links
  // name the routes, not the app's own pages (`pages.signUp`, `pages.forgotPassword`): the block
  // does not see the configuration, and the route's GET redirects there (./app-pages.ts).
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

export const passwordDeclaration: MethodDeclaration = {
  types: ["password"],
  load: async () => (await import("./method.js")).passwordMethod,
  signInPageBlock: passwordSignInBlock,
};
