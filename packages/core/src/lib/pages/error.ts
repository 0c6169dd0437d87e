/** The built-in error page (`GET <basePath>/error`). */

import type { Theme } from "../types/config.js";
import { displayHost, escapeHtml, safeNavigationUrl } from "./escape.js";
import { renderShell } from "./shell.js";

/** What {@link renderErrorPage} needs. */
export interface ErrorPageParams {
  /** The raw `?error=` value. Untrusted: only selects a message and a status, never shown. */
  error?: string;
  /** The site's home, linked from the generic error. */
  siteUrl: string;
  /** The sign-in page, linked from the access and link errors. */
  signInUrl: string;
  theme: Required<Theme>;
}

interface ErrorView {
  status: number;
  heading: string;
  paragraphs: string[];
  /** Offer the sign-in page rather than the site's home. */
  linkToSignIn: boolean;
}

// Looked up with Object.hasOwn so `?error=toString` and friends get the generic view.
const VIEWS: Readonly<Record<string, ErrorView>> = {
  Configuration: {
    status: 500,
    heading: "Server error",
    paragraphs: [
      "The server is not configured correctly.",
      "Its administrator can find more in the server logs.",
    ],
    linkToSignIn: false,
  },
  AccessDenied: {
    status: 403,
    heading: "Access Denied",
    paragraphs: ["You do not have permission to sign in."],
    linkToSignIn: true,
  },
  Verification: {
    status: 403,
    heading: "Unable to sign in",
    paragraphs: [
      "The sign in link is no longer valid.",
      "It may have been used already, or it may have expired.",
    ],
    linkToSignIn: true,
  },
  // Gatehouse addition: a callback URL that points off the site is the client's mistake.
  InvalidCallbackUrl: {
    status: 400,
    heading: "Invalid link",
    paragraphs: [
      "The link you followed asks to return to an address outside this site.",
      "Go back to the site and try again.",
    ],
    linkToSignIn: true,
  },
  // Gatehouse addition: a sign-out the session store could not complete (docs/sessions.md).
  SessionStoreUnavailable: {
    status: 200,
    heading: "You are still signed in",
    paragraphs: [
      "Signing you out did not finish: the server could not reach its session store.",
      "Wait a moment and sign out again.",
    ],
    linkToSignIn: false,
  },
};

const GENERIC_VIEW: ErrorView = {
  status: 200,
  heading: "Error",
  paragraphs: ["Something went wrong while signing you in."],
  linkToSignIn: false,
};

function viewFor(error: string | undefined): ErrorView {
  if (error && Object.hasOwn(VIEWS, error)) return VIEWS[error] ?? GENERIC_VIEW;
  return GENERIC_VIEW;
}

/**
 * Renders the built-in error page and picks its HTTP status: 500 for `Configuration`, 403
 * for `AccessDenied` and `Verification`, 400 for `InvalidCallbackUrl`, 200 for anything else. The raw error value never
 * reaches the HTML.
 *
 * @example
 * ```ts
 * const { status, html } = renderErrorPage({ error, siteUrl, signInUrl, theme });
 * return new Response(html, { status, headers: { "Content-Type": "text/html; charset=utf-8" } });
 * ```
 */
export function renderErrorPage(params: ErrorPageParams): { status: number; html: string } {
  const view = viewFor(params.error);
  const parts = [`<h1>${escapeHtml(view.heading)}</h1>`];
  for (const paragraph of view.paragraphs) {
    parts.push(`<p class="center">${escapeHtml(paragraph)}</p>`);
  }
  if (view.linkToSignIn) {
    const href = safeNavigationUrl(params.signInUrl);
    parts.push(`<a class="button button-primary" href="${escapeHtml(href)}">Sign in</a>`);
  } else if (view.status === 200) {
    const href = safeNavigationUrl(params.siteUrl);
    parts.push(
      `<p class="center"><a href="${escapeHtml(href)}">${escapeHtml(displayHost(href))}</a></p>`,
    );
  }
  const html = renderShell({ title: "Error", theme: params.theme, content: parts.join("\n") });
  return { status: view.status, html };
}
