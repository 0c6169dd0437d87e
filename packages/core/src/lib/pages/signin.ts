/** The built-in sign-in page (`GET <basePath>/signin`). */

import { carriedMethod } from "../feature.js";
import type { Theme } from "../types/config.js";
import type { InternalProvider } from "../types/internal.js";
import type {
  CredentialInput,
  CredentialsConfig,
  EmailConfig,
  OAuthConfig,
  WebAuthnConfig,
} from "../types/providers.js";
import { readableTextColor, safeCssColor } from "./css.js";
import { escapeHtml, originOf, safeImageSrc, safeNavigationUrl } from "./escape.js";
import { inputId, renderField } from "./fields.js";
import { hiddenFields, INVALID_FIELD, renderErrorBox, renderShell } from "./shell.js";
import { signInErrorMessage } from "./sign-in-errors.js";

/** What {@link renderSignInPage} needs. */
export interface SignInPageParams {
  /** The providers, in configuration order. */
  providers: InternalProvider[];
  csrfToken: string;
  /** Where to go after signing in; already checked by the caller. */
  callbackUrl?: string;
  /** The raw `?error=` value. Untrusted: only selects a message, never shown. */
  error?: string;
  /** The raw `?code=` value that refines some errors (e.g. `invalid_email`). Untrusted. */
  code?: string;
  /** Prefill for the email inputs (`?email=`). Untrusted. */
  email?: string;
  theme: Required<Theme>;
}

/** The kind of form whose fields an error is about, if any. */
function invalidGroup(error: string | undefined, code: string | undefined): Group | undefined {
  if (error === "CredentialsSignin") return "credentials";
  if (error === "EmailSignin" && code === "invalid_email") return "email";
  return undefined;
}

/** What every block needs besides its provider (raw values; escaped where written). */
interface FormContext {
  csrfToken: string;
  callbackUrl?: string;
  email?: string;
  /** The kind of form whose fields the page's error is about: they are marked invalid. */
  invalid?: Group;
}

/**
 * A form's visible fields, grouped under the provider's name: a page can hold several "Email"
 * fields (email link, credentials, passkey), and the group tells a screen reader which is which.
 */
function fieldGroup(provider: InternalProvider, fields: string[]): string {
  return [
    "<fieldset>",
    `<legend class="visually-hidden">${buttonLabel(provider)}</legend>`,
    ...fields,
    "</fieldset>",
  ].join("\n");
}

function buttonLabel(provider: InternalProvider): string {
  return `Sign in with ${escapeHtml(provider.name)}`;
}

function renderOAuth(
  provider: InternalProvider & OAuthConfig,
  index: number,
  context: FormContext,
): string {
  const style = provider.style ?? {};
  const logo = safeImageSrc(style.logo, {
    anyHttpHost: false,
    sameOrigin: originOf(provider.signinUrl),
  });
  const action = safeNavigationUrl(provider.signinUrl);
  return [
    `<form method="post" action="${escapeHtml(action)}">`,
    hiddenFields(context.csrfToken, context.callbackUrl),
    `<button type="submit" class="button button-provider provider-${index}">`,
    logo ? `<img class="provider-logo" src="${escapeHtml(logo)}" alt="">` : "",
    `<span>${buttonLabel(provider)}</span>`,
    "</button>",
    "</form>",
  ]
    .filter(Boolean)
    .join("\n");
}

/** Per-button colours, as a rule on the button's index class (no inline `style`). */
function providerCss(provider: InternalProvider & OAuthConfig, index: number): string {
  const style = provider.style ?? {};
  const brand = safeCssColor(style.brandColor) ?? safeCssColor(style.bg);
  const text = safeCssColor(style.text) ?? readableTextColor(brand);
  const declarations: string[] = [];
  if (brand) declarations.push(`--provider-brand-color:${brand}`);
  if (text) declarations.push(`--provider-text-color:${text}`);
  return declarations.length > 0 ? `.provider-${index}{${declarations.join(";")}}` : "";
}

function renderEmail(provider: InternalProvider & EmailConfig, context: FormContext): string {
  const id = escapeHtml(inputId("email", provider.id));
  const value = context.email ? ` value="${escapeHtml(context.email)}"` : "";
  const invalid = context.invalid === "email" ? INVALID_FIELD : "";
  return [
    `<form method="post" action="${escapeHtml(safeNavigationUrl(provider.signinUrl))}">`,
    hiddenFields(context.csrfToken, context.callbackUrl),
    fieldGroup(provider, [
      `<label for="${id}">Email</label>`,
      `<input id="${id}" type="email" name="email" autocomplete="email"` +
        ` placeholder="email@example.com" required${value}${invalid}>`,
    ]),
    `<button type="submit" class="button button-primary">${buttonLabel(provider)}</button>`,
    "</form>",
  ].join("\n");
}

function renderCredentials(
  provider: InternalProvider & CredentialsConfig,
  context: FormContext,
): string {
  const invalid = context.invalid === "credentials" ? INVALID_FIELD : "";
  const fields = Object.entries(provider.credentials).map(([key, input]) =>
    renderField(key, input, provider.id, invalid),
  );
  return [
    `<form method="post" action="${escapeHtml(safeNavigationUrl(provider.callbackUrl))}">`,
    hiddenFields(context.csrfToken, context.callbackUrl),
    fields.length > 0 ? fieldGroup(provider, fields) : "",
    `<button type="submit" class="button button-primary">${buttonLabel(provider)}</button>`,
    "</form>",
  ]
    .filter(Boolean)
    .join("\n");
}

function renderWebAuthn(
  provider: InternalProvider & WebAuthnConfig,
  formFields: Record<string, CredentialInput>,
  context: FormContext,
): string {
  const id = escapeHtml(provider.id);
  const fields = Object.entries(formFields).map(([key, input]) =>
    renderField(key, input, provider.id, " data-form-field"),
  );
  return [
    `<form id="${id}-form" method="post" action="${escapeHtml(safeNavigationUrl(provider.callbackUrl))}">`,
    hiddenFields(context.csrfToken),
    fields.length > 0 ? fieldGroup(provider, fields) : "",
    `<button id="submitButton-${id}" type="submit" class="button button-primary">` +
      `${buttonLabel(provider)}</button>`,
    "</form>",
    // Where the passkey script says what went wrong: in the page from the start, so it announces.
    `<div id="${id}-error" aria-live="assertive" aria-atomic="true"></div>`,
    // The script comes with the provider's method (WebAuthn() and Passkey() carry it).
    carriedMethod(provider)?.signInPageHtml?.(provider) ?? "",
  ]
    .filter(Boolean)
    .join("\n");
}

/** The group a provider's block belongs to; a separator goes between different groups. */
type Group = "oauth" | "email" | "credentials" | "webauthn";

interface Block {
  group: Group;
  html: string;
  css: string;
}

function renderBlock(
  provider: InternalProvider,
  index: number,
  context: FormContext,
): Block | undefined {
  switch (provider.type) {
    case "oauth":
    case "oidc":
      return {
        group: "oauth",
        html: renderOAuth(provider, index, context),
        css: providerCss(provider, index),
      };
    case "email":
      return { group: "email", html: renderEmail(provider, context), css: "" };
    case "credentials":
      if (!provider.credentials) return undefined;
      return { group: "credentials", html: renderCredentials(provider, context), css: "" };
    case "webauthn":
      if (!provider.formFields) return undefined;
      return {
        group: "webauthn",
        html: renderWebAuthn(provider, provider.formFields, context),
        css: "",
      };
    default: {
      // A type the page does not know: the block of the method its provider carries, if any.
      const html = carriedMethod(provider)?.signInPageBlock?.(provider, context);
      return html === undefined ? undefined : { group: "credentials", html, css: "" };
    }
  }
}

/**
 * Renders the built-in sign-in page: an optional error box, then one block per provider in
 * configuration order, with an "or" separator between blocks of different kinds.
 *
 * @example
 * ```ts
 * const html = renderSignInPage({ providers, csrfToken, theme, error: url.searchParams.get("error") ?? undefined });
 * return new Response(html, { headers: { "Content-Type": "text/html; charset=utf-8" } });
 * ```
 */
export function renderSignInPage(params: SignInPageParams): string {
  const context: FormContext = {
    csrfToken: params.csrfToken,
    ...(params.callbackUrl ? { callbackUrl: params.callbackUrl } : {}),
    ...(params.email ? { email: params.email } : {}),
  };
  const invalid = invalidGroup(params.error, params.code);
  if (invalid) context.invalid = invalid;
  const parts: string[] = ["<h1>Sign in</h1>"];
  if (params.error) parts.push(renderErrorBox(signInErrorMessage(params.error, params.code)));
  const css: string[] = [];
  let previous: Group | undefined;
  params.providers.forEach((provider, index) => {
    const block = renderBlock(provider, index, context);
    if (!block) return;
    if (previous && previous !== block.group) parts.push('<p class="divider">or</p>');
    previous = block.group;
    parts.push(`<div class="provider">\n${block.html}\n</div>`);
    if (block.css) css.push(block.css);
  });
  return renderShell({
    title: "Sign In",
    theme: params.theme,
    content: parts.join("\n"),
    css: css.join("\n"),
    failed: !!params.error,
  });
}
