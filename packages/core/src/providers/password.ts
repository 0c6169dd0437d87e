/**
 * Email and password accounts kept by Gatehouse: sign-up with a proven address, sign-in, reset,
 * change, and the password policy (docs/passwords.md). Needs an adapter that stores an account's `passwordHash`.
 * Mail goes through `sendEmail`, or over SMTP with the optional peer `nodemailer`.
 * @module
 */
import { needsRehash } from "../lib/crypto/password.js";
import { withMethod } from "../lib/feature.js";
import { passwordDeclaration } from "../lib/features/password/declaration.js";
import { passwordEmail } from "../lib/features/password/mail.js";
import type {
  PasswordConfig,
  PasswordEmail,
  PasswordOptions,
} from "../lib/features/password/options.js";
import { resolvePasswordPolicy } from "../lib/features/password/policy.js";
import { env, transport } from "./_shared/smtp.js";

// What password accounts add to the open lists, and their error (EmailNotVerified), registered
// now so that the sign-in page knows it before any password request.
import "../lib/features/password/errors.js";

export {
  type BreachCheck,
  type BreachCheckReport,
  type PwnedPasswordsRangeOptions,
  pwnedPasswordsRange,
} from "../lib/features/password/breach.js";
export { EmailNotVerified } from "../lib/features/password/errors.js";
export type {
  FieldsSchema,
  PasswordConfig,
  PasswordEmail,
  PasswordEmailKind,
  PasswordOptions,
} from "../lib/features/password/options.js";
export type { PasswordPolicyOptions } from "../lib/features/password/policy.js";
export type {} from "../lib/features/password/types.js";
export { passwordEmail };

/** The default `sendEmail`: over SMTP, settings read when the first email is sent. */
function smtp(options: PasswordOptions): (email: PasswordEmail) => Promise<void> {
  return async (email) => {
    const server = options.server ?? env("AUTH_NODEMAILER_SERVER") ?? env("EMAIL_SERVER");
    if (!server) {
      throw new Error(
        "No way to send email: set sendEmail, or server (AUTH_NODEMAILER_SERVER, EMAIL_SERVER)",
      );
    }
    const from =
      options.from ??
      env("AUTH_NODEMAILER_FROM") ??
      env("EMAIL_FROM") ??
      "Gatehouse <no-reply@localhost>";
    const { to, subject, html, text } = email;
    const result = await (await transport(server)).sendMail({ to, from, subject, html, text });
    if (result.rejected?.length) throw new Error("The SMTP server rejected the recipient");
  };
}

/** Refuses malformed options when the provider is made, naming the option. */
function check(options: PasswordOptions): void {
  resolvePasswordPolicy(options.policy);
  needsRehash("", options.hash);
  const schema = options.fields as { "~standard"?: { validate?: unknown } } | undefined;
  if (schema !== undefined && typeof schema?.["~standard"]?.validate !== "function") {
    throw new TypeError("Password provider: `fields` must be a Standard Schema (zod, valibot, …)");
  }
  const { maxAge } = options;
  if (maxAge !== undefined && !(typeof maxAge === "number" && maxAge > 0 && maxAge <= 7 * 86400)) {
    throw new TypeError("Password provider: `maxAge` must be a number of seconds up to 7 days");
  }
  const { resetMaxAge } = options;
  if (
    resetMaxAge !== undefined &&
    !(typeof resetMaxAge === "number" && resetMaxAge > 0 && resetMaxAge <= 86400)
  ) {
    throw new TypeError(
      "Password provider: `resetMaxAge` must be a number of seconds up to 24 hours",
    );
  }
  if (options.sendEmail !== undefined && typeof options.sendEmail !== "function") {
    throw new TypeError("Password provider: `sendEmail` must be a function");
  }
}

/**
 * A password provider (id `password`). People sign up at `GET|POST <basePath>/signup/<id>` with
 * an email address, a password the policy accepts and the app's `fields`; the answer is the same
 * whether or not the address already has an account (its owner is emailed instead). The emailed
 * link proves the address in the browser that signed up; opened anywhere else, it lets the
 * address's owner choose their own password instead, so nobody can hand a stranger's account to
 * a password they chose. Sign-in posts `email` and `password` to `<basePath>/callback/<id>`,
 * under the credentials rate limits. A forgotten password is reset from
 * `<basePath>/forgot-password/<id>` through an emailed single-use link (1 hour, and only the
 * newest one works), which ends every session of the user; a signed-in user changes theirs at
 * `<basePath>/change-password/<id>` with the current one, which ends every other session. A
 * signed-in user moves to another address at `<basePath>/change-email/<id>` (a single-use link to
 * the new address; an address another user holds is never taken), and adds or removes a password
 * at `<basePath>/set-password/<id>` and `<basePath>/remove-password/<id>` (never the last way in).
 * Needs an adapter that stores an account's `passwordHash`.
 *
 * @example
 * ```ts
 * import Password from "@gatehousejs/core/providers/password";
 * import { z } from "zod";
 *
 * Password({
 *   fields: z.object({ name: z.string().min(1).max(100) }),
 *   formFields: { name: { label: "Name", autocomplete: "name" } },
 *   async sendEmail({ to, subject, text, html }) {
 *     await mailApi.send({ to, subject, text, html });
 *   },
 * })
 * ```
 */
export default function Password(options: PasswordOptions = {}): PasswordConfig {
  check(options);
  const { sendEmail, requireEmailVerification, ...rest } = options;
  const provider: PasswordConfig = {
    id: "password",
    name: "Password",
    ...rest,
    requireEmailVerification: requireEmailVerification !== false,
    sendEmail: sendEmail ?? smtp(options),
    type: "password",
  };
  return withMethod(provider, passwordDeclaration);
}
