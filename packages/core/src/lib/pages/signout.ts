/** The built-in sign-out confirmation page (`GET <basePath>/signout`). */

import type { Theme } from "../types/config.js";
import { escapeHtml, safeNavigationUrl } from "./escape.js";
import { hiddenFields, renderShell } from "./shell.js";

/** What {@link renderSignOutPage} needs. */
export interface SignOutPageParams {
  csrfToken: string;
  /** Where the form posts: the sign-out endpoint. */
  action: string;
  /** Where to go after signing out; already checked by the caller. */
  callbackUrl?: string;
  theme: Required<Theme>;
}

/**
 * Renders the built-in sign-out page: a question and a button that posts the CSRF token
 * (and the callback URL, when given) to `action`.
 *
 * @example
 * ```ts
 * const html = renderSignOutPage({ csrfToken, action: `${origin}/auth/signout`, theme });
 * ```
 */
export function renderSignOutPage(params: SignOutPageParams): string {
  const content = [
    "<h1>Sign out</h1>",
    '<p class="center">Are you sure you want to sign out?</p>',
    `<form method="post" action="${escapeHtml(safeNavigationUrl(params.action))}">`,
    hiddenFields(params.csrfToken, params.callbackUrl),
    '<button type="submit" class="button button-primary">Sign out</button>',
    "</form>",
  ].join("\n");
  return renderShell({ title: "Sign Out", theme: params.theme, content });
}
