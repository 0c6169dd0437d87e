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
}

/** Renders a complete HTML document around one page's card. */
export function renderShell(params: ShellParams): string {
  const scheme = colorSchemeOf(params.theme);
  const logo = safeImageSrc(params.theme.logo, { anyHttpHost: true });
  const css = [STYLESHEET, themeCss(params.theme), params.css ?? ""].join("\n");
  const colorSchemeMeta = scheme === "auto" ? "light dark" : scheme;
  return [
    "<!DOCTYPE html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta name="color-scheme" content="${colorSchemeMeta}">`,
    '<meta name="robots" content="noindex">',
    `<title>${escapeHtml(params.title)}</title>`,
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
