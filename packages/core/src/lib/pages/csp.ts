/**
 * The security headers of the built-in pages: never cached, never sniffed, never framed, and a
 * Content-Security-Policy that runs only the page's own inline style and script (by nonce).
 */

/** A fresh nonce for one page: 128 random bits, base64. */
function nonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}

/** The policy for a page whose inline elements carry `nonce`. */
function policy(value: string): string {
  return [
    "default-src 'none'",
    `style-src 'nonce-${value}'`,
    `script-src 'nonce-${value}'`,
    "img-src 'self' data: https: http:",
    "connect-src 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/**
 * A page with a nonce on each of its inline `<style>` and `<script>` elements, and the headers to
 * send with it. The pages escape every value they render, so these tags are only their own.
 */
export function securePage(html: string): { html: string; headers: Record<string, string> } {
  const value = nonce();
  return {
    html: html
      .replaceAll("<style>", `<style nonce="${value}">`)
      .replaceAll("<script>", `<script nonce="${value}">`),
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": policy(value),
    },
  };
}
