/**
 * The built-in pages of a signed-in user's account: changing the address (the form, the page the
 * emailed link opens, and what follows), setting a password and removing it. Pure functions from
 * page data to HTML, in the shell and style of the other built-in pages (./pages-reset.ts).
 */
import { escapeHtml, safeNavigationUrl } from "../../pages/escape.js";
import { hiddenFields, INVALID_FIELD, renderErrorBox, renderShell } from "../../pages/shell.js";
import type { Theme } from "../../types/config.js";
import { id, newPasswordField } from "./pages.js";

const href = (url: string) => escapeHtml(safeNavigationUrl(url));
const form = (action: string) => `<form method="post" action="${href(action)}">`;
const lines = (parts: string[]) => parts.filter((line) => line !== "").join("\n");

/** The current password, for a form that needs it. */
function currentField(providerId: string, invalid: boolean): string {
  const input = id("current-password", providerId);
  return [
    `<label for="${input}">Current password</label>`,
    `<input id="${input}" name="currentPassword" type="password" autocomplete="current-password" required${invalid ? INVALID_FIELD : ""}>`,
  ].join("\n");
}

/** What {@link renderChangeEmailPage} needs. */
export interface ChangeEmailPageParams {
  providerId: string;
  /** Where the form posts: POST /change-email/<provider>. */
  action: string;
  csrfToken: string;
  callbackUrl?: string;
  /** The signed-in user's address now. */
  email: string;
  /** Whether the form asks for the current password (the user has one). */
  needsPassword: boolean;
  /** The new address typed, when the page answers a refusal. */
  newEmail?: string;
  error?: string;
  invalid?: "email" | "current";
  /** The request was taken: the page says to open the link mailed to the new address. */
  sent?: boolean;
  theme: Required<Theme>;
}

/** The signed-in user's change-email page, or, once asked, "check the new address's email". */
export function renderChangeEmailPage(params: ChangeEmailPageParams): string {
  if (params.sent) {
    const content = [
      "<h1>Check your email</h1>",
      '<p class="center">We sent a link to the new address. Your address changes only when the link is used; it works once and expires in an hour.</p>',
      '<p class="center muted">If nothing arrives, check the spam folder of the new address, and that you typed it right.</p>',
    ].join("\n");
    return renderShell({ title: "Check your email", theme: params.theme, content });
  }
  const input = id("new-email", params.providerId);
  const value = params.newEmail ? ` value="${escapeHtml(params.newEmail)}"` : "";
  const content = lines([
    "<h1>Change your email address</h1>",
    params.error ? renderErrorBox(params.error) : "",
    `<p class="center">Your account uses <strong>${escapeHtml(params.email)}</strong>. We will send a link to the new address; nothing changes until it is used.</p>`,
    form(params.action),
    hiddenFields(params.csrfToken, params.callbackUrl),
    `<label for="${input}">New email address</label>`,
    `<input id="${input}" name="email" type="email" autocomplete="email" required${value}${params.invalid === "email" ? INVALID_FIELD : ""}>`,
    params.needsPassword ? currentField(params.providerId, params.invalid === "current") : "",
    '<button type="submit" class="button button-primary">Send the link</button>',
    "</form>",
  ]);
  return renderShell({
    title: "Change your email address",
    theme: params.theme,
    content,
    failed: !!params.error,
  });
}

/** What {@link renderEmailChangeLinkPage} needs. */
export interface EmailChangeLinkPageParams {
  /** Where the form posts: POST /change-email/<provider>. */
  action: string;
  csrfToken: string;
  token: string;
  /** The new address. */
  email: string;
  /** The user the link was made for. */
  user: string;
  theme: Required<Theme>;
}

/** What the emailed link opens: one button that makes the change (a GET changes nothing). */
export function renderEmailChangeLinkPage(params: EmailChangeLinkPageParams): string {
  const email = escapeHtml(params.email);
  const content = [
    "<h1>Confirm your new email address</h1>",
    `<p class="center">Use <strong>${email}</strong> for your account from now on? Every browser signed in to it is signed out.</p>`,
    form(params.action),
    hiddenFields(params.csrfToken),
    `<input type="hidden" name="token" value="${escapeHtml(params.token)}">`,
    `<input type="hidden" name="email" value="${email}">`,
    `<input type="hidden" name="user" value="${escapeHtml(params.user)}">`,
    '<button type="submit" class="button button-primary">Use this address</button>',
    "</form>",
  ].join("\n");
  return renderShell({ title: "Confirm your new email address", theme: params.theme, content });
}

/** After the link: the address changed, or why it did not. */
export function renderEmailChangedPage(params: {
  signInUrl: string;
  error?: string;
  theme: Required<Theme>;
}): string {
  const title = params.error ? "The address was not changed" : "Your email address was changed";
  const content = lines([
    `<h1>${title}</h1>`,
    params.error ? renderErrorBox(params.error) : "",
    params.error
      ? ""
      : '<p class="center">Every browser signed in to your account was signed out: sign in again with the new address.</p>',
    `<p class="center"><a href="${href(params.signInUrl)}">Sign in</a></p>`,
  ]);
  return renderShell({ title, theme: params.theme, content, failed: !!params.error });
}

/** What {@link renderSetPasswordPage} and {@link renderRemovePasswordPage} need. */
export interface AccountPasswordPageParams {
  providerId: string;
  /** Where the form posts. */
  action: string;
  csrfToken: string;
  callbackUrl?: string;
  /** The signed-in user's address, for password managers. */
  email: string;
  minLength: number;
  error?: string;
  theme: Required<Theme>;
}

/** The page of a signed-in user without a password: choose one. */
export function renderSetPasswordPage(params: AccountPasswordPageParams): string {
  const content = lines([
    "<h1>Set a password</h1>",
    params.error ? renderErrorBox(params.error) : "",
    `<p class="center">Your account will also sign in with <strong>${escapeHtml(params.email)}</strong> and this password.</p>`,
    form(params.action),
    hiddenFields(params.csrfToken, params.callbackUrl),
    `<input type="hidden" name="username" value="${escapeHtml(params.email)}" autocomplete="username">`,
    newPasswordField(params.providerId, params.minLength, !!params.error, "Password"),
    '<button type="submit" class="button button-primary">Set password</button>',
    "</form>",
  ]);
  return renderShell({
    title: "Set a password",
    theme: params.theme,
    content,
    failed: !!params.error,
  });
}

/** The page that removes the signed-in user's password, with the current one. */
export function renderRemovePasswordPage(params: AccountPasswordPageParams): string {
  const content = lines([
    "<h1>Remove your password</h1>",
    params.error ? renderErrorBox(params.error) : "",
    '<p class="center">Your account will sign in only the other ways it has. Every other browser signed in to it is signed out.</p>',
    form(params.action),
    hiddenFields(params.csrfToken, params.callbackUrl),
    `<input type="hidden" name="username" value="${escapeHtml(params.email)}" autocomplete="username">`,
    currentField(params.providerId, !!params.error),
    '<button type="submit" class="button button-primary">Remove password</button>',
    "</form>",
  ]);
  return renderShell({
    title: "Remove your password",
    theme: params.theme,
    content,
    failed: !!params.error,
  });
}
