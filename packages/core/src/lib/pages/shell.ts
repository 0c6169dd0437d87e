/** The document every built-in page shares: head, stylesheet, theme, logo and card. */

import type { Theme } from "../types/config.js";
import { colorSchemeOf, STYLESHEET, themeCss } from "./css.js";
import { escapeHtml, safeImageSrc } from "./escape.js";

/** What a page puts into the shared document. */
export interface ShellParams {
  /** The `<title>`. */
  title: string;
  theme: Required<Theme>;
  /** The card's HTML, already escaped. */
  content: string;
  /** Extra CSS rules built from checked values only. */
  css?: string;
  /** The page shows an error box: the title says so first, for screen reader users. */
  failed?: boolean;
}

/** The id of a page's error box, named by `aria-describedby` on the fields it is about. */
export const ERROR_ID = "error";

/**
 * The error box of a page that answers a failure. It takes the focus when the page loads
 * (`autofocus` on a focusable box, no script), so a screen reader reads it first.
 */
export function renderErrorBox(message: string): string {
  return (
    `<div id="${ERROR_ID}" class="error" role="alert" tabindex="-1" autofocus>` +
    `<p>${escapeHtml(message)}</p></div>`
  );
}

/** The attributes that mark a field as the one an error box is about. */
export const INVALID_FIELD = ` aria-invalid="true" aria-describedby="${ERROR_ID}"`;

/** Renders a complete HTML document around one page's card. */
export function renderShell(params: ShellParams): string {
  const scheme = colorSchemeOf(params.theme);
  const logo = safeImageSrc(params.theme.logo, { anyHttpHost: true });
  const css = [STYLESHEET, themeCss(params.theme), params.css ?? ""].join("\n");
  const colorSchemeMeta = scheme === "auto" ? "light dark" : scheme;
  const title = params.failed ? `Error: ${params.title}` : params.title;
  // Without an icon of its own, a browser asks every page for /favicon.ico, which the app may
  // not serve: the theme's logo is the icon, else an empty one.
  return [
    "<!DOCTYPE html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta name="color-scheme" content="${colorSchemeMeta}">`,
    '<meta name="robots" content="noindex">',
    `<title>${escapeHtml(title)}</title>`,
    `<link rel="icon" href="${escapeHtml(logo || "data:,")}">`,
    `<style>${css}</style>`,
    "</head>",
    `<body class="gatehouse-theme-${scheme}">`,
    '<main class="page">',
    logo ? `<img class="logo" src="${escapeHtml(logo)}" alt="">` : "",
    '<div class="card">',
    params.content,
    "</div>",
    "</main>",
    "</body>",
    "</html>",
    "",
  ]
    .filter((line, index, lines) => line !== "" || index === lines.length - 1)
    .join("\n");
}

/** The hidden fields every form carries: the CSRF token and, when known, the callback URL. */
export function hiddenFields(csrfToken: string, callbackUrl?: string): string {
  const fields = [`<input type="hidden" name="csrfToken" value="${escapeHtml(csrfToken)}">`];
  if (callbackUrl) {
    fields.push(`<input type="hidden" name="callbackUrl" value="${escapeHtml(callbackUrl)}">`);
  }
  return fields.join("\n");
}
