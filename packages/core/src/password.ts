/**
 * Password hashing for credentials sign-in: scrypt from `node:crypto`, a random salt per
 * password, a constant-time comparison, and parameters that can be raised later
 * (`needsRehash`). `verifyPassword(password, null)` does the work of a real check for a user
 * that does not exist, so that `authorize` takes as long for unknown accounts.
 * @module
 */
export {
  hashPassword,
  MAX_PASSWORD_LENGTH,
  needsRehash,
  type PasswordHashOptions,
  verifyPassword,
} from "./lib/crypto/password.js";
