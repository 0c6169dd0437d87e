/**
 * The email-link provider of `@gatehousejs/core` that sends through nodemailer, for SolidStart apps.
 * @module
 */
export {
  default,
  type EmailConfig,
  type NodemailerOptions,
} from "@gatehousejs/core/providers/nodemailer";
