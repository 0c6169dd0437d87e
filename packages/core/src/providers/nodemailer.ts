/**
 * Email sign-in delivered over SMTP with nodemailer (an optional peer dependency).
 * @module
 */
import { signInEmail } from "../lib/sign-in/email/message.js";
import type { EmailConfig } from "../lib/types/providers.js";
import { env, transport } from "./_shared/smtp.js";

export type { EmailConfig } from "../lib/types/providers.js";

/** Options of {@link Nodemailer}. */
export interface NodemailerOptions extends Partial<Omit<EmailConfig, "type">> {
  /**
   * The SMTP server: a URL (`smtp://user:pass@smtp.example:587`) or nodemailer transport
   * options. Default: `AUTH_NODEMAILER_SERVER`, else `EMAIL_SERVER`.
   */
  server?: string | Record<string, unknown>;
  /** Sender. Default: `AUTH_NODEMAILER_FROM`, else `EMAIL_FROM`, else `Gatehouse <no-reply@localhost>`. */
  from?: string;
}

/**
 * An email provider that sends the sign-in link over SMTP: a default HTML and plain-text message
 * with the site's host, a sign-in button in the theme's colours, and the one-time code when
 * `code` is set. Settings not given here are
 * read from the environment when the first email is sent.
 *
 * @example
 * ```ts
 * Nodemailer({ server: process.env.EMAIL_SERVER, from: "Acme <login@acme.example>" })
 * ```
 */
export default function Nodemailer(options: NodemailerOptions = {}): EmailConfig {
  const provider: EmailConfig = {
    id: "nodemailer",
    name: "Email",
    maxAge: 24 * 60 * 60,
    async sendVerificationRequest({ identifier, url, theme, provider: resolved, code }) {
      const server =
        (resolved.server as NodemailerOptions["server"]) ??
        env("AUTH_NODEMAILER_SERVER") ??
        env("EMAIL_SERVER");
      if (!server)
        throw new Error("No SMTP server: set server, AUTH_NODEMAILER_SERVER or EMAIL_SERVER");
      const from =
        resolved.from ??
        env("AUTH_NODEMAILER_FROM") ??
        env("EMAIL_FROM") ??
        "Gatehouse <no-reply@localhost>";
      const message = signInEmail({
        url,
        theme: theme as { brandColor?: string; buttonText?: string },
        ...(code === undefined ? {} : { code }),
      });
      const result = await (await transport(server)).sendMail({ to: identifier, from, ...message });
      if (result.rejected?.length) throw new Error("The SMTP server rejected the recipient");
    },
    ...options,
    type: "email",
  };
  return provider;
}
