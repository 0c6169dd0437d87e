/**
 * Passwordless sign-in by a one-time link sent by email, with the delivery left to you.
 * This module does not load nodemailer.
 * @module
 */
import type { EmailConfig } from "../lib/types/providers.js";

export { normalizeEmail } from "../lib/email/normalize.js";
export { signInEmail } from "../lib/sign-in/email/message.js";
export type { EmailConfig } from "../lib/types/providers.js";

/** What {@link Email} takes: at least `sendVerificationRequest`. */
export type EmailOptions = Partial<Omit<EmailConfig, "type" | "sendVerificationRequest">> &
  Pick<EmailConfig, "sendVerificationRequest">;

/**
 * An email provider. `sendVerificationRequest` delivers `url` (and `code`, with `code` set) to
 * `identifier` however you like (an HTTP mail API, a queue, ...). Tokens are stored hashed and
 * work once; links expire after `maxAge` seconds (default 24 hours). Opening the link shows a
 * page with one button whose `POST` signs in (`confirm: false`: the link signs in directly).
 * Needs an adapter with `createVerificationToken`, `useVerificationToken` and `getUserByEmail`
 * (and the user methods).
 *
 * @example
 * ```ts
 * Email({
 *   from: "Acme <login@acme.example>",
 *   code: true,
 *   async sendVerificationRequest({ identifier, url, code }) {
 *     await mailApi.send({ to: identifier, subject: "Sign in", text: `${url}\n\nCode: ${code}` });
 *   },
 * })
 * ```
 */
export default function Email(options: EmailOptions): EmailConfig {
  return {
    id: "email",
    name: "Email",
    maxAge: 24 * 60 * 60,
    ...options,
    type: "email",
  };
}
