/**
 * The emails of password accounts: the default subject, HTML and text of each kind, and sending
 * one through the provider's `sendEmail`. A message never holds a password or a hash.
 */
import type { Context } from "../../context.js";
import { EmailSignInError } from "../../errors.js";
import type { PasswordConfig, PasswordEmail, PasswordEmailKind } from "./options.js";

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const colour = (value: string | undefined, fallback: string) =>
  value && /^#[0-9a-f]{3,8}$|^[a-z]{3,20}$|^rgba?\([\d\s.,%]+\)$/i.test(value) ? value : fallback;

interface Wording {
  subject: (host: string) => string;
  lead: (host: string) => string;
  button: string;
  after: string;
}

const WORDING: Record<PasswordEmailKind, Wording> = {
  verifyEmail: {
    subject: (host) => `Confirm your email address for ${host}`,
    lead: (host) => `Confirm your email address to finish signing up to ${host}.`,
    button: "Confirm email address",
    after:
      "If you did not sign up, you can ignore this email: the account cannot be used without this link. If you open it on a device you did not sign up on, you can choose your own password instead.",
  },
  accountExists: {
    subject: (host) => `Someone tried to sign up to ${host} with your email address`,
    lead: (host) =>
      `Someone tried to sign up to ${host} with this email address, which already has an account. Nothing was changed.`,
    button: "Sign in",
    after:
      "If it was you, sign in instead, or reset your password if you forgot it. If it was not you, you can ignore this email.",
  },
  resetPassword: {
    subject: (host) => `Reset your password for ${host}`,
    lead: (host) => `Someone asked to reset the password of your account at ${host}.`,
    button: "Choose a new password",
    after:
      "The link works once, and only until it expires or another reset is asked for. If you did not ask for it, you can ignore this email: your password stays as it is.",
  },
  resetUnconfirmed: {
    subject: (host) => `Confirm your email address for ${host}`,
    lead: (host) =>
      `Someone asked to reset the password of an account at ${host} with this email address. The account was started with it, but the address was never confirmed.`,
    button: "Confirm and choose a password",
    after:
      "If it is your address, open the link to confirm it and choose your password: any password chosen before stops working. Otherwise, you can ignore this email.",
  },
  resetUnavailable: {
    subject: (host) => `Password reset asked for at ${host}`,
    lead: (host) =>
      `Someone asked to reset a password at ${host} for this email address, but it has no password to reset.`,
    button: "Sign in",
    after:
      "If you have an account, it signs in another way (an emailed link, a passkey or another site's account): choose it on the sign-in page. If you did not ask, you can ignore this email.",
  },
  passwordChanged: {
    subject: (host) => `Your password for ${host} was changed`,
    lead: (host) =>
      `The password of your account at ${host} was just changed, and other devices signed in to it were signed out.`,
    button: "Reset your password",
    after:
      "If it was you, there is nothing more to do. If it was not, reset your password now and check your account's recent activity.",
  },
  changeEmail: {
    subject: (host) => `Confirm your new email address for ${host}`,
    lead: (host) =>
      `Someone signed in to an account at ${host} asked to use this email address for it from now on.`,
    button: "Use this email address",
    after:
      "Nothing changes until the link is used; it works once and expires in an hour. If you did not ask for it, you can ignore this email.",
  },
  changeEmailUnavailable: {
    subject: (host) => `This email address cannot be used at ${host}`,
    lead: (host) =>
      `Someone signed in to an account at ${host} asked to use this email address for it, but another account already uses it. Nothing was changed.`,
    button: "Sign in",
    after:
      "If it was you, sign in with this address instead. If you did not ask for it, you can ignore this email.",
  },
  emailChanged: {
    subject: (host) => `Your email address at ${host} was changed`,
    lead: (host) =>
      `The email address of your account at ${host} was just changed to another one, and every device signed in to it was signed out. This address no longer signs in to it.`,
    button: "Sign in",
    after:
      "If it was you, there is nothing more to do. If it was not, contact the site's support now: someone who knows your password may hold your account.",
  },
  passwordSet: {
    subject: (host) => `A password was set on your account at ${host}`,
    lead: (host) =>
      `A password was just set on your account at ${host}: it now signs in with this address and that password too.`,
    button: "Reset the password",
    after:
      "If it was you, there is nothing more to do. If it was not, reset the password now and check your account's recent activity.",
  },
  passwordRemoved: {
    subject: (host) => `The password of your account at ${host} was removed`,
    lead: (host) =>
      `The password of your account at ${host} was just removed, and other devices signed in to it were signed out. It signs in the other ways it has.`,
    button: "Sign in",
    after:
      "If it was you, there is nothing more to do. If it was not, sign in and check your account's recent activity.",
  },
  accountUnconfirmed: {
    subject: (host) => `Confirm your email address for ${host}`,
    lead: (host) =>
      `Someone tried to sign up to ${host} with this email address. An account with this address was started before, but the address was never confirmed.`,
    button: "Confirm and choose a password",
    after:
      "If it is your address, open the link to confirm it and choose your password: any password chosen before stops working. Otherwise, you can ignore this email.",
  },
};

const CODE_LEAD = "Or type this code on the page that asked for the email:";

/** The default subject, HTML and text of an email of `kind` with `url` (and a reset `code`). */
export function passwordEmail(params: {
  kind: PasswordEmailKind;
  url: string;
  /** A reset code to show beside the link. */
  code?: string;
  theme?: { brandColor?: string; buttonText?: string };
}): { subject: string; html: string; text: string } {
  const wording = WORDING[params.kind];
  const { host } = new URL(params.url);
  // A zero-width space after each dot keeps mail clients from turning the host into a link.
  const shown = escapeHtml(host.replace(/\./g, ".\u200B"));
  const brand = colour(params.theme?.brandColor, "#346df1");
  const buttonText = colour(params.theme?.buttonText, "#ffffff");
  const href = escapeHtml(params.url);
  const code = params.code ? escapeHtml(params.code) : undefined;
  const codeRow = code
    ? `<tr><td style="padding:8px 24px;font-size:14px;text-align:center;color:#52525b">${CODE_LEAD}</td></tr>
<tr><td style="padding:0 24px 16px;font-size:28px;letter-spacing:4px;text-align:center;font-family:Menlo,Consolas,monospace"><strong>${code}</strong></td></tr>
`
    : "";
  const html = `<!DOCTYPE html>
<html lang="en">
<body style="margin:0;padding:24px;background:#f4f4f5;font-family:Helvetica,Arial,sans-serif;color:#18181b">
<table role="presentation" width="100%" cellspacing="0" cellpadding="0" style="max-width:560px;margin:auto;background:#ffffff;border-radius:10px">
<tr><td style="padding:24px 24px 8px;font-size:16px;line-height:24px;text-align:center">${escapeHtml(wording.lead(host)).replace(escapeHtml(host), `<strong>${shown}</strong>`)}</td></tr>
<tr><td style="padding:16px 24px;text-align:center">
<a href="${href}" target="_blank" style="display:inline-block;padding:12px 24px;border-radius:6px;background:${brand};color:${buttonText};font-weight:bold;text-decoration:none">${escapeHtml(wording.button)}</a>
</td></tr>
${codeRow}<tr><td style="padding:8px 24px 24px;font-size:14px;line-height:20px;text-align:center;color:#52525b">${escapeHtml(wording.after)}</td></tr>
</table>
</body>
</html>
`;
  const codeText = params.code ? `${CODE_LEAD} ${params.code}\n\n` : "";
  const text = `${wording.lead(host)}\n\n${wording.button}: ${params.url}\n\n${codeText}${wording.after}\n`;
  return { subject: wording.subject(host), html, text };
}

/**
 * Sends an email of `kind` to `to` through the provider's `sendEmail`. A failure is an
 * `EmailSignInError` (`send_failed`) whose cause is the transport's error.
 */
export async function sendPasswordEmail(
  ctx: Context,
  provider: PasswordConfig,
  email: { kind: PasswordEmailKind; to: string; url: string; expires?: Date; code?: string },
): Promise<void> {
  const message: PasswordEmail = {
    ...email,
    ...passwordEmail({
      kind: email.kind,
      url: email.url,
      theme: ctx.config.theme,
      ...(email.code ? { code: email.code } : {}),
    }),
    request: ctx.req.original,
  };
  try {
    await provider.sendEmail(message);
  } catch (cause) {
    const error = new EmailSignInError("The email could not be sent", { cause });
    error.code = "send_failed";
    throw error;
  }
}
