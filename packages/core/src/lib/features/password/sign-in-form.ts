/**
 * The password provider's form on the built-in sign-in page: address and password, and the links
 * to sign up and to reset a forgotten password. It comes with the provider's module (./declaration.ts),
 * so it imports no page module: the page shell and its stylesheet load with a page, not with the
 * provider. Its hidden fields and invalid-field attributes are those of ../../pages/shell.ts
 * (`hiddenFields`, `INVALID_FIELD`), which the tests compare.
 */
import { escapeHtml, safeNavigationUrl } from "../../pages/escape.js";

/** What {@link renderPasswordSignInForm} needs. */
export interface PasswordSignInFormParams {
  providerId: string;
  providerName: string;
  /** Where the form posts: POST /callback/<provider>. */
  action: string;
  csrfToken: string;
  callbackUrl?: string;
  /** Prefill of the address (`?email=`). Untrusted: escaped. */
  email?: string;
  /** The page's error is about these fields (a wrong address or password). */
  invalid?: boolean;
  signUpUrl: string;
  forgotUrl: string;
}

const href = (url: string) => escapeHtml(safeNavigationUrl(url));
const field = (name: string, providerId: string) =>
  escapeHtml(`input-${name}-for-${providerId}-provider`);

/** The form's block: one fieldset under the provider's name, then the two links. */
export function renderPasswordSignInForm(params: PasswordSignInFormParams): string {
  const email = field("email", params.providerId);
  const password = field("password", params.providerId);
  const invalid = params.invalid ? ' aria-invalid="true" aria-describedby="error"' : "";
  const value = params.email ? ` value="${escapeHtml(params.email)}"` : "";
  const label = `Sign in with ${escapeHtml(params.providerName)}`;
  const hidden = [`<input type="hidden" name="csrfToken" value="${escapeHtml(params.csrfToken)}">`];
  if (params.callbackUrl) {
    hidden.push(
      `<input type="hidden" name="callbackUrl" value="${escapeHtml(params.callbackUrl)}">`,
    );
  }
  return [
    `<form method="post" action="${href(params.action)}">`,
    ...hidden,
    "<fieldset>",
    `<legend class="visually-hidden">${label}</legend>`,
    `<label for="${email}">Email</label>`,
    `<input id="${email}" name="email" type="email" autocomplete="username" required${value}${invalid}>`,
    `<label for="${password}">Password</label>`,
    `<input id="${password}" name="password" type="password" autocomplete="current-password" required${invalid}>`,
    "</fieldset>",
    `<button type="submit" class="button button-primary">${label}</button>`,
    "</form>",
    `<p class="center muted"><a href="${href(params.forgotUrl)}">Forgot your password?</a> · <a href="${href(params.signUpUrl)}">Create an account</a></p>`,
  ].join("\n");
}
