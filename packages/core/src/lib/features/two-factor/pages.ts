/**
 * The built-in pages of two-factor sign-in: the challenge after the first factor, enrolment
 * (start, then the QR code and the secret with the first code), the backup codes shown once, and
 * the signed-in user's settings. Pure functions from page data to HTML, in the shell and style of
 * the other built-in pages; every field has a label, a refusal's message is in an error box that
 * takes the focus, and no page needs JavaScript.
 */
import { escapeHtml, safeNavigationUrl } from "../../pages/escape.js";
import { hiddenFields, INVALID_FIELD, renderErrorBox, renderShell } from "../../pages/shell.js";
import type { Theme } from "../../types/config.js";
import type { TrustedBrowserView } from "./trust.js";

const href = (url: string) => escapeHtml(safeNavigationUrl(url));
const form = (action: string) => `<form method="post" action="${href(action)}">`;
const lines = (parts: string[]) => parts.filter((line) => line !== "").join("\n");

/** The input of an authenticator code. */
function codeField(digits: number, invalid: boolean, id = "two-factor-code"): string {
  return [
    `<label for="${id}">Code from your authenticator app</label>`,
    `<input id="${id}" name="code" type="text" inputmode="numeric" autocomplete="one-time-code"` +
      ` pattern="[0-9 ]*" minlength="${digits}" maxlength="${digits + 2}" required autofocus` +
      `${invalid ? INVALID_FIELD : ""}>`,
  ].join("\n");
}

/** The checkbox that trusts this browser, in each form of the challenge. */
function trustField(id: string, days: number): string {
  return [
    '<label class="checkbox">',
    `<input id="${id}" name="trustBrowser" type="checkbox" value="1">`,
    `Don't ask again on this browser for ${days} days`,
    "</label>",
  ].join("\n");
}

/** What {@link renderChallengePage} needs. */
export interface ChallengePageParams {
  /** Where both forms post: POST /two-factor/challenge. */
  action: string;
  csrfToken: string;
  digits: number;
  /** How long a trusted browser is not asked, in days. */
  trustDays: number;
  error?: string;
  /** Which field the error is about. */
  invalid?: "code" | "backupCode";
  /**
   * The passkey providers the page offers instead of a code: a passkey of the waiting user
   * answers the challenge. Each one's form posts to its callback through the passkey script its
   * method gives.
   */
  passkeys?: readonly PasskeyOffer[];
  theme: Required<Theme>;
}

/** A passkey provider as the challenge page offers it. */
export interface PasskeyOffer {
  id: string;
  /** POST /callback/<id>. */
  callbackUrl: string;
  /** Where the passkey sign-in lands (the waiting sign-in's). */
  landing: string;
  /** The provider's passkey script, sign-in only (its method's `signInPageHtml`). */
  script: string;
}

/** "Use a passkey instead": the forms of the passkey providers, for the passkey script. */
function passkeySection(params: ChallengePageParams): string {
  const offers = params.passkeys ?? [];
  if (offers.length === 0) return "";
  return lines([
    "<hr>",
    '<p class="center muted">Or use a passkey of this account instead of a code.</p>',
    ...offers.map((offer) => {
      const id = escapeHtml(offer.id);
      return lines([
        `<form id="${id}-form" method="post" action="${href(offer.callbackUrl)}">`,
        hiddenFields(params.csrfToken, offer.landing),
        `<button id="submitButton-${id}" type="submit" class="button">Use a passkey</button>`,
        "</form>",
        `<div id="${id}-error" aria-live="assertive" aria-atomic="true"></div>`,
        offer.script,
      ]);
    }),
  ]);
}

/** The page after the first factor: a code from the app, or a backup code. */
export function renderChallengePage(params: ChallengePageParams): string {
  const content = lines([
    "<h1>Two-factor sign-in</h1>",
    params.error ? renderErrorBox(params.error) : "",
    '<p class="center">Enter the code your authenticator app shows for this site.</p>',
    form(params.action),
    hiddenFields(params.csrfToken),
    codeField(params.digits, params.invalid === "code"),
    trustField("two-factor-trust", params.trustDays),
    '<button type="submit" class="button button-primary">Verify</button>',
    "</form>",
    "<hr>",
    '<p class="center muted">No access to the app? Use one of the backup codes you saved.</p>',
    form(params.action),
    hiddenFields(params.csrfToken),
    '<label for="two-factor-backup-code">Backup code</label>',
    '<input id="two-factor-backup-code" name="backupCode" type="text" autocomplete="off"' +
      ` spellcheck="false" required${params.invalid === "backupCode" ? INVALID_FIELD : ""}>`,
    trustField("two-factor-trust-backup", params.trustDays),
    '<button type="submit" class="button">Use the backup code</button>',
    "</form>",
    passkeySection(params),
  ]);
  return renderShell({
    title: "Two-factor sign-in",
    theme: params.theme,
    content,
    failed: !!params.error,
  });
}

/** What {@link renderSettingsPage} needs. */
export interface SettingsPageParams {
  enabled: boolean;
  backupCodesLeft: number;
  digits: number;
  csrfToken: string;
  /** POST /two-factor/enroll, /two-factor/disable and /two-factor/backup-codes. */
  enrollAction: string;
  disableAction: string;
  backupCodesAction: string;
  /** POST /two-factor/forget-browser (`id`, or `all`). */
  forgetAction: string;
  /** The browsers that skip the code, newest first. */
  trustedBrowsers: readonly TrustedBrowserView[];
  /** Where "Back to the site" goes (the callback URL, else the site's home). */
  siteUrl: string;
  error?: string;
  message?: string;
  theme: Required<Theme>;
}

/** The signed-in user's two-factor settings: set it up, or regenerate codes and turn it off. */
export function renderSettingsPage(params: SettingsPageParams): string {
  const status = params.message
    ? `<p class="center" role="status">${escapeHtml(params.message)}</p>`
    : "";
  const back = `<p class="center muted"><a href="${href(params.siteUrl)}">Back to the site</a></p>`;
  if (!params.enabled) {
    const content = lines([
      "<h1>Two-factor sign-in</h1>",
      params.error ? renderErrorBox(params.error) : "",
      status,
      '<p class="center">Two-factor sign-in is off. With it on, signing in also asks for a code from an authenticator app on your phone.</p>',
      form(params.enrollAction),
      hiddenFields(params.csrfToken),
      '<button type="submit" class="button button-primary">Set up two-factor sign-in</button>',
      "</form>",
      back,
    ]);
    return renderShell({
      title: "Two-factor sign-in",
      theme: params.theme,
      content,
      failed: !!params.error,
    });
  }
  const left = params.backupCodesLeft;
  const content = lines([
    "<h1>Two-factor sign-in</h1>",
    params.error ? renderErrorBox(params.error) : "",
    status,
    '<p class="center">Two-factor sign-in is on.</p>',
    `<p class="center" data-backup-codes-left="${left}">You have ${left} unused backup code${left === 1 ? "" : "s"}.</p>`,
    "<h2>New backup codes</h2>",
    '<p class="muted">New codes replace every old one. Confirm with a code from your app.</p>',
    form(params.backupCodesAction),
    hiddenFields(params.csrfToken),
    codeField(params.digits, false, "two-factor-regenerate-code"),
    '<button type="submit" class="button">Make new backup codes</button>',
    "</form>",
    "<h2>Turn off</h2>",
    '<p class="muted">Confirm with a code from your app or a backup code.</p>',
    form(params.disableAction),
    hiddenFields(params.csrfToken),
    codeField(params.digits, false, "two-factor-disable-code"),
    '<button type="submit" class="button">Turn off two-factor sign-in</button>',
    "</form>",
    trustedSection(params),
    back,
  ]);
  return renderShell({
    title: "Two-factor sign-in",
    theme: params.theme,
    content,
    failed: !!params.error,
  });
}

/** A day as the settings show it (`2026-11-26`). */
const day = (iso: string) => escapeHtml(iso.slice(0, 10));

/** The trusted browsers, each with its "Forget" button, and "Forget all". */
function trustedSection(params: SettingsPageParams): string {
  const browsers = params.trustedBrowsers;
  if (browsers.length === 0) {
    return lines([
      "<h2>Trusted browsers</h2>",
      '<p class="muted">No browser skips the code. At the code, tick "Don\'t ask again on this browser" to trust one.</p>',
    ]);
  }
  const items = browsers.map((browser) =>
    lines([
      `<li data-trusted-browser="${escapeHtml(browser.id)}">`,
      `${escapeHtml(browser.client)}${browser.current ? " <strong>(this browser)</strong>" : ""}`,
      `<span class="muted">trusted ${day(browser.createdAt)}, until ${day(browser.expiresAt)}</span>`,
      form(params.forgetAction),
      hiddenFields(params.csrfToken),
      `<input type="hidden" name="id" value="${escapeHtml(browser.id)}">`,
      '<button type="submit" class="button">Forget</button>',
      "</form>",
      "</li>",
    ]),
  );
  return lines([
    "<h2>Trusted browsers</h2>",
    '<p class="muted">These browsers are not asked for a code when you sign in.</p>',
    `<ul class="trusted-browsers">${items.join("\n")}</ul>`,
    form(params.forgetAction),
    hiddenFields(params.csrfToken),
    '<input type="hidden" name="all" value="1">',
    '<button type="submit" class="button">Forget all</button>',
    "</form>",
  ]);
}

/** What {@link renderEnrolPage} needs. */
export interface EnrolPageParams {
  /** POST /two-factor/confirm. */
  action: string;
  csrfToken: string;
  /** The secret in base32, for typing into an app. */
  secret: string;
  /** The QR code of the `otpauth://` URI, as inline SVG made by Gatehouse. */
  qrSvg: string;
  digits: number;
  error?: string;
  theme: Required<Theme>;
}

/** Enrolment: scan the code (or type the secret), then prove it with the first code. */
export function renderEnrolPage(params: EnrolPageParams): string {
  const grouped = params.secret.match(/.{1,4}/g)?.join(" ") ?? params.secret;
  const content = lines([
    "<h1>Set up two-factor sign-in</h1>",
    params.error ? renderErrorBox(params.error) : "",
    '<p class="center">Scan this code with your authenticator app, then enter the code the app shows.</p>',
    `<div class="center" style="max-width:14rem;margin:0 auto">${params.qrSvg}</div>`,
    '<p class="center muted">Cannot scan it? Type this key into the app:</p>',
    `<p class="center"><code data-totp-secret="${escapeHtml(params.secret)}">${escapeHtml(grouped)}</code></p>`,
    form(params.action),
    hiddenFields(params.csrfToken),
    codeField(params.digits, !!params.error),
    '<button type="submit" class="button button-primary">Turn on</button>',
    "</form>",
  ]);
  return renderShell({
    title: "Set up two-factor sign-in",
    theme: params.theme,
    content,
    failed: !!params.error,
  });
}

/** The backup codes, shown once, after enrolment or a regeneration. */
export function renderBackupCodesPage(params: {
  codes: readonly string[];
  continueUrl: string;
  theme: Required<Theme>;
}): string {
  const items = params.codes.map((code) => `<li><code>${escapeHtml(code)}</code></li>`);
  const content = lines([
    "<h1>Your backup codes</h1>",
    '<p class="center">Keep these somewhere safe. Each one signs you in once if you cannot use your authenticator app. This is the only time they are shown.</p>',
    `<ul class="backup-codes" data-backup-codes>${items.join("")}</ul>`,
    `<p class="center"><a class="button button-primary" href="${href(params.continueUrl)}">I saved them</a></p>`,
  ]);
  return renderShell({ title: "Your backup codes", theme: params.theme, content });
}
