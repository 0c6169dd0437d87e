/** The built-in sign-out confirmation page (`GET <basePath>/signout`). */

import type { Theme } from "../types/config.js";
import { escapeHtml, safeNavigationUrl } from "./escape.js";
import { hiddenFields, renderErrorBox, renderShell } from "./shell.js";

/** What {@link renderSignOutPage} needs. */
export interface SignOutPageParams {
  csrfToken: string;
  /** Where the form posts: the sign-out endpoint. */
  action: string;
  /** Where to go after signing out; already checked by the caller. */
  callbackUrl?: string;
  theme: Required<Theme>;
  /** The raw `?error=` of a refused sign-out. Untrusted: only selects a message, never shown. */
  error?: string;
}

/** The message for a refused sign-out: its form expired (`MissingCSRF`), or something else. */
export function signOutErrorMessage(error: string): string {
  return error === "MissingCSRF"
    ? "The sign out form expired. Please try again."
    : "Signing out did not work. Please try again.";
}

/**
 * Renders the built-in sign-out page: a question and a button that posts the CSRF token
 * (and the callback URL, when given) to `action`; after a refused sign-out, the reason first.
 *
 * @example
 * ```ts
 * const html = renderSignOutPage({ csrfToken, action: `${origin}/auth/signout`, theme });
 * ```
 */
export function renderSignOutPage(params: SignOutPageParams): string {
  const content = [
    "<h1>Sign out</h1>",
    params.error ? renderErrorBox(signOutErrorMessage(params.error)) : "",
    '<p class="center">Are you sure you want to sign out?</p>',
    `<form method="post" action="${escapeHtml(safeNavigationUrl(params.action))}">`,
    hiddenFields(params.csrfToken, params.callbackUrl),
    '<button type="submit" class="button button-primary">Sign out</button>',
    "</form>",
  ]
    .filter((line) => line !== "")
    .join("\n");
  return renderShell({ title: "Sign Out", theme: params.theme, content, failed: !!params.error });
}
