/** The built-in page shown after a sign-in email was sent (`GET <basePath>/verify-request`). */

import type { Theme } from "../types/config.js";
import { displayHost, escapeHtml, safeNavigationUrl } from "./escape.js";
import { hiddenFields, INVALID_FIELD, renderErrorBox, renderShell } from "./shell.js";

/** The code form of the verify-request page, for a provider that sends codes. */
export interface VerifyRequestCodeForm {
  /** Where the form posts: the email provider's callback URL. */
  action: string;
  csrfToken: string;
  /** Characters of a code, and whether they are all digits (for the keyboard). */
  length: number;
  digits: boolean;
  /** The address the code went to, when known. */
  email?: string;
}

/** What {@link renderVerifyRequestPage} needs. */
export interface VerifyRequestPageParams {
  /** The site's home, linked from the page by its host name. */
  siteUrl: string;
  theme: Required<Theme>;
  /** A form to type the emailed code into. */
  codeForm?: VerifyRequestCodeForm;
  /** The raw `?code=` of a failed code (`wrong_code`, `code_unusable`). Only selects a message. */
  codeError?: string;
}

const CODE_ERRORS: Readonly<Record<string, string>> = {
  wrong_code: "That code is not right. Check the email and try again.",
  code_unusable:
    "That code can no longer be used (it expired, was used, had too many wrong tries, or was asked for in another browser). Ask for a new email.",
};

function codeErrorMessage(code: string): string {
  return Object.hasOwn(CODE_ERRORS, code)
    ? (CODE_ERRORS[code] as string)
    : "The code could not be used. Try again.";
}

// Browsers compile `pattern` with the `v` flag, where a bare `-` in a class is a syntax error.
const DIGIT_CODE_PATTERN = "[0-9 \\-]*";

function renderCodeForm(form: VerifyRequestCodeForm, invalid: boolean): string {
  const keyboard = form.digits ? ` inputmode="numeric" pattern="${DIGIT_CODE_PATTERN}"` : "";
  return [
    form.email
      ? `<p class="center">Or type the code sent to <strong>${escapeHtml(form.email)}</strong>:</p>`
      : '<p class="center">Or type the code from the email:</p>',
    `<form method="post" action="${escapeHtml(safeNavigationUrl(form.action))}">`,
    hiddenFields(form.csrfToken),
    '<label for="input-code">Code</label>',
    `<input id="input-code" name="code" type="text" autocomplete="one-time-code" required` +
      ` autocapitalize="off" spellcheck="false" maxlength="${form.length * 2}"${keyboard}` +
      `${invalid ? INVALID_FIELD : ""}>`,
    '<button type="submit" class="button button-primary">Sign in with code</button>',
    "</form>",
  ].join("\n");
}

/**
 * Renders the built-in "check your email" page, with a link back to the site, and a form for the
 * emailed code when the provider sends codes.
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
    params.codeError ? renderErrorBox(codeErrorMessage(params.codeError)) : "",
    '<p class="center">A sign in link has been sent to your email address.</p>',
    params.codeForm ? renderCodeForm(params.codeForm, params.codeError === "wrong_code") : "",
    `<p class="center"><a href="${escapeHtml(href)}">${escapeHtml(displayHost(href))}</a></p>`,
  ]
    .filter((line) => line !== "")
    .join("\n");
  return renderShell({
    title: "Verify Request",
    theme: params.theme,
    content,
    failed: !!params.codeError,
  });
}
