/**
 * The built-in pages of resetting and changing a password: pure functions from page data to HTML, in the shell and style of the other built-in pages
 * (../../pages/). Every field has a label; a refusal's message is in an error box that takes the
 * focus, and marks the field it is about; no page needs JavaScript.
 */
import { escapeHtml, safeNavigationUrl } from "../../pages/escape.js";
import { hiddenFields, INVALID_FIELD, renderErrorBox, renderShell } from "../../pages/shell.js";
import type { Theme } from "../../types/config.js";
import { id, newPasswordField } from "./pages.js";

const href = (url: string) => escapeHtml(safeNavigationUrl(url));
const form = (action: string) => `<form method="post" action="${href(action)}">`;
const lines = (parts: string[]) => parts.filter((line) => line !== "").join("\n");

/** An email input, with what was typed. */
function emailField(providerId: string, email: string | undefined, invalid: boolean): string {
  const input = id("email", providerId);
  const value = email ? ` value="${escapeHtml(email)}"` : "";
  return [
    `<label for="${input}">Email</label>`,
    `<input id="${input}" name="email" type="email" autocomplete="email" required` +
      `${value}${invalid ? INVALID_FIELD : ""}>`,
  ].join("\n");
}

/** What {@link renderForgotPage} needs. */
export interface ForgotPageParams {
  providerId: string;
  /** Where the form posts: POST /forgot-password/<provider>. */
  action: string;
  csrfToken: string;
  callbackUrl?: string;
  signInUrl: string;
  email?: string;
  error?: string;
  theme: Required<Theme>;
}

/** The page that asks for the address whose password to reset. */
export function renderForgotPage(params: ForgotPageParams): string {
  const content = lines([
    "<h1>Reset your password</h1>",
    params.error ? renderErrorBox(params.error) : "",
    '<p class="center">Enter the email address of your account: we will send it a link to choose a new password.</p>',
    form(params.action),
    hiddenFields(params.csrfToken, params.callbackUrl),
    emailField(params.providerId, params.email, !!params.error),
    '<button type="submit" class="button button-primary">Send the link</button>',
    "</form>",
    `<p class="center muted"><a href="${href(params.signInUrl)}">Back to sign in</a></p>`,
  ]);
  return renderShell({
    title: "Reset your password",
    theme: params.theme,
    content,
    failed: !!params.error,
  });
}

/** The "check your email" page after a reset request: the same for every address. */
export function renderResetSentPage(params: { signInUrl: string; theme: Required<Theme> }): string {
  const content = [
    "<h1>Check your email</h1>",
    '<p class="center">If an account uses the address you gave, we sent it a link to choose a new password.</p>',
    '<p class="center muted">The link works once and expires soon; asking again makes the earlier link stop working. If nothing arrives, check your spam folder.</p>',
    `<p class="center"><a href="${href(params.signInUrl)}">Back to sign in</a></p>`,
  ].join("\n");
  return renderShell({ title: "Check your email", theme: params.theme, content });
}

/** What {@link renderResetPage} needs. */
export interface ResetPageParams {
  providerId: string;
  /** Where the form posts: POST /reset-password/<provider>. */
  action: string;
  csrfToken: string;
  token: string;
  email: string;
  callbackUrl?: string;
  minLength: number;
  error?: string;
  theme: Required<Theme>;
}

/** The page a reset link opens: the new password (posting it spends the link). */
export function renderResetPage(params: ResetPageParams): string {
  const email = escapeHtml(params.email);
  const content = lines([
    "<h1>Choose a new password</h1>",
    params.error ? renderErrorBox(params.error) : "",
    `<p class="center">Choose a new password for <strong>${email}</strong>. Every browser signed in to the account is signed out.</p>`,
    form(params.action),
    hiddenFields(params.csrfToken, params.callbackUrl),
    `<input type="hidden" name="token" value="${escapeHtml(params.token)}">`,
    `<input type="hidden" name="email" value="${email}">`,
    `<input type="hidden" name="username" value="${email}" autocomplete="username">`,
    newPasswordField(params.providerId, params.minLength, !!params.error, "New password"),
    '<button type="submit" class="button button-primary">Set password and sign in</button>',
    "</form>",
  ]);
  return renderShell({
    title: "Choose a new password",
    theme: params.theme,
    content,
    failed: !!params.error,
  });
}

/** What {@link renderResetCodePage} needs. */
export interface ResetCodePageParams {
  providerId: string;
  /** Where the form posts: POST /reset-password/<provider>. */
  action: string;
  csrfToken: string;
  callbackUrl?: string;
  signInUrl: string;
  /** The address the request was for (prefilled). */
  email?: string;
  minLength: number;
  error?: string;
  /** The field the error is about. */
  invalid?: "email" | "code" | "password";
  theme: Required<Theme>;
}

/**
 * With reset codes, the page a request leads to: "check your email", and the form that takes
 * the emailed code with the new password (the link in the email works as well).
 */
export function renderResetCodePage(params: ResetCodePageParams): string {
  const code = id("code", params.providerId);
  const wrongCode = params.invalid === "code" ? INVALID_FIELD : "";
  const content = lines([
    "<h1>Check your email</h1>",
    params.error ? renderErrorBox(params.error) : "",
    '<p class="center">If an account uses the address you gave, we sent it a link and a code. Open the link, or type the code here with your new password.</p>',
    form(params.action),
    hiddenFields(params.csrfToken, params.callbackUrl),
    emailField(params.providerId, params.email, params.invalid === "email"),
    `<label for="${code}">Code</label>`,
    `<input id="${code}" name="code" type="text" autocomplete="one-time-code" inputmode="text" autocapitalize="characters" spellcheck="false" required${wrongCode}>`,
    newPasswordField(
      params.providerId,
      params.minLength,
      params.invalid === "password",
      "New password",
    ),
    '<button type="submit" class="button button-primary">Set password and sign in</button>',
    "</form>",
    `<p class="center muted"><a href="${href(params.signInUrl)}">Back to sign in</a></p>`,
  ]);
  return renderShell({
    title: "Check your email",
    theme: params.theme,
    content,
    failed: !!params.error,
  });
}

/** What {@link renderChangePage} needs. */
export interface ChangePageParams {
  providerId: string;
  /** Where the form posts: POST /change-password/<provider>. */
  action: string;
  csrfToken: string;
  callbackUrl?: string;
  /** The signed-in user's address, for password managers. */
  email: string;
  /** The page that starts a reset, for a user who forgot the current password. */
  forgotUrl: string;
  minLength: number;
  error?: string;
  /** The field the error is about. */
  invalid?: "current" | "password";
  theme: Required<Theme>;
}

/** The signed-in user's change-password page: the current password, and a new one. */
export function renderChangePage(params: ChangePageParams): string {
  const current = id("current-password", params.providerId);
  const wrong = params.invalid === "current" ? INVALID_FIELD : "";
  const content = lines([
    "<h1>Change your password</h1>",
    params.error ? renderErrorBox(params.error) : "",
    form(params.action),
    hiddenFields(params.csrfToken, params.callbackUrl),
    `<input type="hidden" name="username" value="${escapeHtml(params.email)}" autocomplete="username">`,
    `<label for="${current}">Current password</label>`,
    `<input id="${current}" name="currentPassword" type="password" autocomplete="current-password" required${wrong}>`,
    newPasswordField(
      params.providerId,
      params.minLength,
      params.invalid === "password",
      "New password",
    ),
    '<button type="submit" class="button button-primary">Change password</button>',
    "</form>",
    '<p class="center muted">Every other browser signed in to your account is signed out.</p>',
    `<p class="center muted"><a href="${href(params.forgotUrl)}">Forgot your current password?</a></p>`,
  ]);
  return renderShell({
    title: "Change your password",
    theme: params.theme,
    content,
    failed: !!params.error,
  });
}
