/**
 * The email-link provider of `@gatehousejs/core` (bring your own sender), for SolidStart apps.
 * @module
 */
export {
  default,
  type EmailConfig,
  type EmailOptions,
  normalizeEmail,
  signInEmail,
} from "@gatehousejs/core/providers/email";
