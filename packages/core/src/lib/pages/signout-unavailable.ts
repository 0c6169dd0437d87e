/** The built-in page for a sign-out the session store could not complete. */

import type { Theme } from "../types/config.js";
import { escapeHtml, safeNavigationUrl } from "./escape.js";
import { hiddenFields, renderShell } from "./shell.js";

/** What {@link renderSignOutUnavailablePage} needs. */
export interface SignOutUnavailablePageParams {
  csrfToken: string;
  /** Where the form posts: the sign-out endpoint. */
  action: string;
  /** Where to go after signing out; already checked by the caller. */
  callbackUrl?: string;
  /** Seconds after which trying again makes sense. */
  retryAfter: number;
  theme: Required<Theme>;
}

/**
 * Renders the page shown when `POST /signout` could not end the session: it says the user is
 * still signed in and offers the same sign-out form again.
 *
 * @example
 * ```ts
 * const html = renderSignOutUnavailablePage({ csrfToken, action, retryAfter: 5, theme });
 * ```
 */
export function renderSignOutUnavailablePage(params: SignOutUnavailablePageParams): string {
  const seconds = Math.max(1, Math.ceil(params.retryAfter));
  const content = [
    "<h1>Sign-out did not finish</h1>",
    '<p class="center">The server could not end your session just now, so you are still signed in.</p>',
    `<p class="center">Please try again in ${seconds} seconds.</p>`,
    `<form method="post" action="${escapeHtml(safeNavigationUrl(params.action))}">`,
    hiddenFields(params.csrfToken, params.callbackUrl),
    '<button type="submit" class="button button-primary">Try again</button>',
    "</form>",
  ].join("\n");
  return renderShell({ title: "Sign Out", theme: params.theme, content });
}
