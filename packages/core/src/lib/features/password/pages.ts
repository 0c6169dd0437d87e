/**
 * The built-in pages of password accounts: sign up, "check your email", the confirmation a
 * verification link opens in the browser that signed up, and the form that lets an address's
 * owner secure the account from anywhere else. Pure functions from page data to HTML, in the
 * shell and style of the other built-in pages (../../pages/).
 */
import { displayHost, escapeHtml, safeNavigationUrl } from "../../pages/escape.js";
import { renderField } from "../../pages/fields.js";
import { hiddenFields, INVALID_FIELD, renderErrorBox, renderShell } from "../../pages/shell.js";
import type { Theme } from "../../types/config.js";
import type { CredentialInput } from "../../types/providers.js";

/** The id of a field of a provider's form, escaped for an attribute. */
export const id = (field: string, providerId: string) =>
  escapeHtml(`input-${field}-for-${providerId}-provider`);

/** A new-password input (the browser offers to generate and save one). */
export function newPasswordField(
  providerId: string,
  minLength: number,
  invalid: boolean,
  label = "Password",
): string {
  const input = id("password", providerId);
  return [
    `<label for="${input}">${escapeHtml(label)}</label>`,
    `<input id="${input}" name="password" type="password" autocomplete="new-password" required` +
      ` minlength="${minLength}"${invalid ? INVALID_FIELD : ""}>`,
    `<p class="muted">At least ${minLength} characters. A few unrelated words make a strong password.</p>`,
  ].join("\n");
}

/** What {@link renderSignUpPage} needs. */
export interface SignUpPageParams {
  providerId: string;
  /** Where the form posts: POST /signup/<provider>. */
  action: string;
  csrfToken: string;
  callbackUrl?: string;
  /** The sign-in page, linked for people who have an account. */
  signInUrl: string;
  /** What was typed, shown again after a refusal (never the password). */
  email?: string;
  values?: Record<string, string>;
  /** Why the last attempt was refused, in words for the user. */
  error?: string;
  /** The field the error is about. */
  invalid?: "email" | "password" | "fields";
  formFields: Record<string, CredentialInput>;
  minLength: number;
  theme: Required<Theme>;
}

/** The sign-up page: address, password, the app's extra fields. */
export function renderSignUpPage(params: SignUpPageParams): string {
  const emailId = id("email", params.providerId);
  const value = params.email ? ` value="${escapeHtml(params.email)}"` : "";
  const extra = Object.entries(params.formFields).map(([key, input]) => {
    const typed = params.values?.[key];
    const shown = typed === undefined ? "" : ` value="${escapeHtml(typed)}"`;
    return renderField(key, input, params.providerId, shown);
  });
  const content = [
    "<h1>Sign up</h1>",
    params.error ? renderErrorBox(params.error) : "",
    `<form method="post" action="${escapeHtml(safeNavigationUrl(params.action))}">`,
    hiddenFields(params.csrfToken, params.callbackUrl),
    `<label for="${emailId}">Email</label>`,
    `<input id="${emailId}" name="email" type="email" autocomplete="email" required` +
      `${value}${params.invalid === "email" ? INVALID_FIELD : ""}>`,
    ...extra,
    newPasswordField(params.providerId, params.minLength, params.invalid === "password"),
    '<button type="submit" class="button button-primary">Sign up</button>',
    "</form>",
    `<p class="center muted">Already have an account? <a href="${escapeHtml(safeNavigationUrl(params.signInUrl))}">Sign in</a></p>`,
  ]
    .filter((line) => line !== "")
    .join("\n");
  return renderShell({ title: "Sign Up", theme: params.theme, content, failed: !!params.error });
}

/** The "check your email" page after a sign-up. */
export function renderVerifyPendingPage(params: {
  siteUrl: string;
  theme: Required<Theme>;
}): string {
  const href = safeNavigationUrl(params.siteUrl);
  const content = [
    "<h1>Check your email</h1>",
    '<p class="center">We sent an email to the address you gave. Open the link in it to confirm your address and finish signing up.</p>',
    '<p class="center muted">The link works once and expires. If nothing arrives, check your spam folder.</p>',
    `<p class="center"><a href="${escapeHtml(href)}">${escapeHtml(displayHost(href))}</a></p>`,
  ].join("\n");
  return renderShell({ title: "Check your email", theme: params.theme, content });
}

/** What the pages a verification link opens need. */
export interface LinkPageParams {
  providerId: string;
  /** Where the form posts: POST /verify-email/<provider>. */
  action: string;
  csrfToken: string;
  token: string;
  email: string;
  callbackUrl?: string;
  theme: Required<Theme>;
}

function linkFields(params: LinkPageParams): string {
  return [
    hiddenFields(params.csrfToken, params.callbackUrl),
    `<input type="hidden" name="token" value="${escapeHtml(params.token)}">`,
    `<input type="hidden" name="email" value="${escapeHtml(params.email)}">`,
  ].join("\n");
}

/** In the browser that signed up: one button that confirms the address (and signs in). */
export function renderConfirmPage(params: LinkPageParams): string {
  const email = escapeHtml(params.email);
  const content = [
    "<h1>Confirm your email address</h1>",
    `<p class="center">Confirm <strong>${email}</strong> and sign in?</p>`,
    `<form method="post" action="${escapeHtml(safeNavigationUrl(params.action))}">`,
    linkFields(params),
    '<button type="submit" class="button button-primary">Confirm and sign in</button>',
    "</form>",
  ].join("\n");
  return renderShell({ title: "Confirm your email address", theme: params.theme, content });
}

/**
 * Anywhere else: the address's owner chooses a password, which replaces the one chosen at
 * sign-up, ends every session of the account, and confirms the address.
 */
export function renderSecurePage(
  params: LinkPageParams & { minLength: number; error?: string },
): string {
  const email = escapeHtml(params.email);
  const content = [
    "<h1>Choose your password</h1>",
    params.error ? renderErrorBox(params.error) : "",
    `<p class="center">This link was opened in another browser than the one that signed up with <strong>${email}</strong>.</p>`,
    '<p class="center">Choose a password to confirm the address and secure the account: the password chosen at sign-up stops working, and every browser signed in to the account is signed out.</p>',
    `<form method="post" action="${escapeHtml(safeNavigationUrl(params.action))}">`,
    linkFields(params),
    `<input type="hidden" name="username" value="${email}" autocomplete="username">`,
    newPasswordField(params.providerId, params.minLength, !!params.error),
    '<button type="submit" class="button button-primary">Set password and sign in</button>',
    "</form>",
    '<p class="center muted">If you did not sign up, choosing a password keeps whoever did out of the account.</p>',
  ]
    .filter((line) => line !== "")
    .join("\n");
  return renderShell({
    title: "Choose your password",
    theme: params.theme,
    content,
    failed: !!params.error,
  });
}
