/**
 * The default sign-in email: HTML and plain text, with the site's host, a sign-in button in the
 * theme's colours, and the one-time code when the provider sends one.
 */

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const colour = (value: string | undefined, fallback: string) =>
  value && /^#[0-9a-f]{3,8}$|^[a-z]{3,20}$|^rgba?\([\d\s.,%]+\)$/i.test(value) ? value : fallback;

/** The subject, HTML and text of a sign-in email for `url` (and `code`, when there is one). */
export function signInEmail(params: {
  url: string;
  theme?: { brandColor?: string; buttonText?: string };
  code?: string;
}): { subject: string; html: string; text: string } {
  const { host } = new URL(params.url);
  // A zero-width space after each dot keeps mail clients from turning the host into a link.
  const displayHost = escapeHtml(host.replace(/\./g, ".\u200B"));
  const brand = colour(params.theme?.brandColor, "#346df1");
  const buttonText = colour(params.theme?.buttonText, "#ffffff");
  const href = escapeHtml(params.url);
  const code = params.code ? escapeHtml(params.code) : undefined;
  const codeRow = code
    ? `<tr><td style="padding:8px 24px;font-size:14px;text-align:center;color:#52525b">Or type this code on the sign-in page:</td></tr>
<tr><td style="padding:0 24px 16px;font-size:28px;letter-spacing:4px;text-align:center;font-family:Menlo,Consolas,monospace"><strong>${code}</strong></td></tr>
`
    : "";
  const html = `<!DOCTYPE html>
<html lang="en">
<body style="margin:0;padding:24px;background:#f4f4f5;font-family:Helvetica,Arial,sans-serif;color:#18181b">
<table role="presentation" width="100%" cellspacing="0" cellpadding="0" style="max-width:560px;margin:auto;background:#ffffff;border-radius:10px">
<tr><td style="padding:24px 24px 8px;font-size:20px;text-align:center">Sign in to <strong>${displayHost}</strong></td></tr>
<tr><td style="padding:16px 24px;text-align:center">
<a href="${href}" target="_blank" style="display:inline-block;padding:12px 24px;border-radius:6px;background:${brand};color:${buttonText};font-weight:bold;text-decoration:none">Sign in</a>
</td></tr>
${codeRow}<tr><td style="padding:8px 24px 24px;font-size:14px;line-height:20px;text-align:center;color:#52525b">If you did not ask for this email, you can ignore it.</td></tr>
</table>
</body>
</html>
`;
  const codeText = params.code ? `Or type this code on the sign-in page: ${params.code}\n\n` : "";
  const text = `Sign in to ${host}\n\n${params.url}\n\n${codeText}If you did not ask for this email, you can ignore it.\n`;
  return { subject: `Sign in to ${host}`, html, text };
}
