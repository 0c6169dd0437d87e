/**
 * The stylesheet of the built-in pages and the checks on the colours a theme or a provider
 * may inject into it. Everything is inline: the pages load no font, image or script.
 */

import type { Theme } from "../types/config.js";

const HEX_COLOR = /^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
const NAMED_COLOR = /^[a-z]{3,32}$/i;
// Colour functions with plain arguments only: no nested function (so no `url(`), no quote,
// no backslash escape, no `;`, `{`, `}` or `<` that could close the rule or the <style>.
const COLOR_FUNCTION = /^(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch|color)\([-+0-9a-z.,%/ ]*\)$/i;

/**
 * Returns `value` when it looks like a CSS colour (hex, a keyword, or a colour function with
 * plain arguments), `undefined` otherwise. Whatever passes cannot leave the declaration it is
 * written into.
 *
 * @example
 * ```ts
 * safeCssColor("#0a7");                  // "#0a7"
 * safeCssColor("red;} body{display:none"); // undefined
 * ```
 */
export function safeCssColor(value: string | undefined): string | undefined {
  if (!value || value.length > 64) return undefined;
  const color = value.trim();
  if (HEX_COLOR.test(color) || NAMED_COLOR.test(color) || COLOR_FUNCTION.test(color)) {
    return color;
  }
  return undefined;
}

function channel(hex: string): number {
  const srgb = Number.parseInt(hex, 16) / 255;
  return srgb <= 0.04045 ? srgb / 12.92 : ((srgb + 0.055) / 1.055) ** 2.4;
}

/**
 * Black or white, whichever contrasts more with a hex background colour (WCAG relative
 * luminance). `undefined` for any other colour syntax: the stylesheet default applies then.
 */
export function readableTextColor(background: string | undefined): string | undefined {
  if (!background || !HEX_COLOR.test(background)) return undefined;
  let digits = background.slice(1);
  if (digits.length <= 4) digits = [...digits].map((d) => d + d).join("");
  const luminance =
    0.2126 * channel(digits.slice(0, 2)) +
    0.7152 * channel(digits.slice(2, 4)) +
    0.0722 * channel(digits.slice(4, 6));
  // Contrast with black is (L + 0.05) / 0.05, with white 1.05 / (L + 0.05); they are equal
  // at L ≈ 0.179.
  return luminance > 0.179 ? "#000000" : "#ffffff";
}

/** The colour schemes a page body class may name. */
export type ColorScheme = "auto" | "dark" | "light";

/** The configured colour scheme, or `auto` for anything unexpected. */
export function colorSchemeOf(theme: Required<Theme>): ColorScheme {
  const scheme = theme.colorScheme;
  return scheme === "dark" || scheme === "light" ? scheme : "auto";
}

/**
 * The theme's custom properties as a CSS rule, or `""` when the theme sets none.
 * Invalid colours are left out.
 */
export function themeCss(theme: Required<Theme>): string {
  const brand = safeCssColor(theme.brandColor);
  const buttonText = safeCssColor(theme.buttonText);
  const declarations: string[] = [];
  if (brand) declarations.push(`--brand-color:${brand}`);
  if (buttonText) declarations.push(`--button-text-color:${buttonText}`);
  else {
    const contrast = readableTextColor(brand);
    if (contrast) declarations.push(`--brand-contrast-color:${contrast}`);
  }
  return declarations.length > 0 ? `body{${declarations.join(";")}}` : "";
}

const LIGHT = `--page-bg:#f3f4f6;--card-bg:#ffffff;--text:#1f2937;--muted:#4b5563;
--border:#d1d5db;--field-bg:#ffffff;--field-border:#6b7280;--focus:#1d4ed8;
--link:#1d4ed8;--default-brand:#1d4ed8;--default-brand-text:#ffffff;
--provider-bg:#ffffff;--provider-text:#1f2937;--error-bg:#fef2f2;--error-text:#991b1b;
--error-border:#f87171;color-scheme:light;`;

const DARK = `--page-bg:#0f1115;--card-bg:#1a1d23;--text:#f3f4f6;--muted:#c4c9d1;
--border:#3a3f47;--field-bg:#111318;--field-border:#8b929c;--focus:#93c5fd;
--link:#93c5fd;--default-brand:#2563eb;--default-brand-text:#ffffff;
--provider-bg:#24282f;--provider-text:#f3f4f6;--error-bg:#3b1212;--error-text:#fecaca;
--error-border:#b91c1c;color-scheme:dark;`;

/** The base stylesheet shared by every page. */
export const STYLESHEET = `
.gatehouse-theme-light,.gatehouse-theme-auto{${LIGHT}}
.gatehouse-theme-dark{${DARK}}
@media (prefers-color-scheme:dark){.gatehouse-theme-auto{${DARK}}}
*,*::before,*::after{box-sizing:border-box}
html{font-size:100%}
body{margin:0;min-height:100vh;background:var(--page-bg);color:var(--text);
font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;
line-height:1.5}
.page{display:flex;flex-direction:column;align-items:center;justify-content:center;
min-height:100vh;padding:2rem 1rem}
.logo{display:block;max-width:9rem;max-height:5rem;margin:0 auto 1.5rem}
.card{width:100%;max-width:22rem;padding:2rem 1.75rem;background:var(--card-bg);
border:1px solid var(--border);border-top:4px solid var(--brand-color,var(--default-brand));
border-radius:0.75rem;box-shadow:0 1px 3px rgb(0 0 0 / 0.12)}
h1{margin:0 0 1rem;font-size:1.375rem;line-height:1.3;text-align:center}
p{margin:0 0 1rem}
.muted{color:var(--muted)}
.center{text-align:center}
form{margin:0}
fieldset{margin:0;padding:0;border:0;min-width:0}
.visually-hidden{position:absolute;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;
clip-path:inset(50%);white-space:nowrap;border:0}
.provider+.provider{margin-top:0.75rem}
label{display:block;margin:0 0 0.25rem;font-weight:600;font-size:0.9375rem}
input{display:block;width:100%;margin:0 0 1rem;padding:0.625rem 0.75rem;font:inherit;
color:var(--text);background:var(--field-bg);border:1px solid var(--field-border);
border-radius:0.375rem}
input::placeholder{color:var(--muted);opacity:1}
.button{display:flex;align-items:center;justify-content:center;gap:0.625rem;width:100%;
min-height:2.75rem;padding:0.625rem 1rem;font:inherit;font-weight:600;text-align:center;
text-decoration:none;border-radius:0.375rem;cursor:pointer}
.button-primary{border:1px solid transparent;background:var(--brand-color,var(--default-brand));
color:var(--button-text-color,var(--brand-contrast-color,var(--default-brand-text)))}
.button-provider{border:1px solid var(--border);
background:var(--provider-brand-color,var(--provider-bg));
color:var(--provider-text-color,var(--provider-text))}
.button:hover{filter:brightness(0.93)}
.provider-logo{width:1.5rem;height:1.5rem;flex:none}
a{color:var(--link)}
a.button-primary{color:var(--button-text-color,var(--brand-contrast-color,var(--default-brand-text)))}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.error{margin:0 0 1.25rem;padding:0.75rem 1rem;background:var(--error-bg);
color:var(--error-text);border:1px solid var(--error-border);border-radius:0.375rem}
.error p{margin:0}
input[aria-invalid="true"]{border-color:var(--error-border);border-width:2px}
.divider{display:flex;align-items:center;gap:0.75rem;margin:1.25rem 0;color:var(--muted);
font-size:0.875rem}
.divider::before,.divider::after{content:"";flex:1;border-top:1px solid var(--border)}
@media (prefers-reduced-motion:no-preference){.button{transition:filter 0.15s}}
@media (forced-colors:active){.button{border:1px solid ButtonText}}
`;
