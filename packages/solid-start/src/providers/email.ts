/**
 * The email-link provider of `@gatehouse/core` (bring your own sender), for SolidStart apps.
 * @module
 */
export {
  default,
  type EmailConfig,
  type EmailOptions,
  normalizeEmail,
  signInEmail,
} from "@gatehouse/core/providers/email";
