/**
 * The email-link provider of `@gatehouse/core` that sends through nodemailer, for SolidStart apps.
 * @module
 */
export {
  default,
  type EmailConfig,
  type NodemailerOptions,
} from "@gatehouse/core/providers/nodemailer";
