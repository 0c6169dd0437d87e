/** The built-in page shown after a sign-in email was sent (`GET <basePath>/verify-request`). */

import type { Theme } from "../types/config.js";
import { displayHost, escapeHtml, safeNavigationUrl } from "./escape.js";
import { renderShell } from "./shell.js";

/** What {@link renderVerifyRequestPage} needs. */
export interface VerifyRequestPageParams {
  /** The site's home, linked from the page by its host name. */
  siteUrl: string;
  theme: Required<Theme>;
}

/**
 * Renders the built-in "check your email" page, with a link back to the site.
 *
 * @example
 * ```ts
 * const html = renderVerifyRequestPage({ siteUrl: url.origin, theme });
 * ```
 */
export function renderVerifyRequestPage(params: VerifyRequestPageParams): string {
  const href = safeNavigationUrl(params.siteUrl);
  const content = [
    "<h1>Check your email</h1>",
    '<p class="center">A sign in link has been sent to your email address.</p>',
    `<p class="center"><a href="${escapeHtml(href)}">${escapeHtml(displayHost(href))}</a></p>`,
  ].join("\n");
  return renderShell({ title: "Verify Request", theme: params.theme, content });
}
