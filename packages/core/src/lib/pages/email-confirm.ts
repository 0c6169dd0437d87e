/**
 * The built-in confirmation page of an email sign-in link (`GET <basePath>/callback/<provider>`):
 * one button that posts the link's token, so a mail scanner that opens links signs nobody in.
 */

import type { Theme } from "../types/config.js";
import { escapeHtml, safeNavigationUrl } from "./escape.js";
import { hiddenFields, renderShell } from "./shell.js";

/** What {@link renderEmailConfirmPage} needs. */
export interface EmailConfirmPageParams {
  /** Where the form posts: the email provider's callback URL. */
  action: string;
  csrfToken: string;
  /** The link's token and address, posted back as they came. */
  token: string;
  email: string;
  /** Where to go after signing in; already checked by the caller. */
  callbackUrl?: string;
  theme: Required<Theme>;
}

/**
 * Renders the page a sign-in link opens: "Sign in as <email>" and a button that posts the token,
 * the address, the callback URL and the CSRF token to `action`.
 *
 * @example
 * ```ts
 * const html = renderEmailConfirmPage({
 *   action: `${origin}/auth/callback/email`,
 *   csrfToken,
 *   token,
 *   email: "alice@example.com",
 *   theme,
 * });
 * ```
 */
export function renderEmailConfirmPage(params: EmailConfirmPageParams): string {
  const email = escapeHtml(params.email);
  const content = [
    "<h1>Sign in</h1>",
    `<p class="center">Continue as <strong>${email}</strong>?</p>`,
    `<form method="post" action="${escapeHtml(safeNavigationUrl(params.action))}">`,
    hiddenFields(params.csrfToken, params.callbackUrl),
    `<input type="hidden" name="token" value="${escapeHtml(params.token)}">`,
    `<input type="hidden" name="email" value="${email}">`,
    `<button type="submit" class="button button-primary">Sign in as ${email}</button>`,
    "</form>",
    '<p class="center muted">If you did not ask to sign in, close this page.</p>',
  ].join("\n");
  return renderShell({ title: "Sign In", theme: params.theme, content });
}
