/**
 * Password hashing for credentials sign-in: scrypt from `node:crypto`, a random salt per
 * password, a constant-time comparison, and parameters that can be raised later
 * (`needsRehash`). `verifyPassword(password, null)` does the work of a real check for a user
 * that does not exist, so that `authorize` takes as long for unknown accounts. Hashes imported
 * from other apps (bcrypt, Argon2, Better Auth's scrypt form) verify too, and `needsRehash` says
 * to replace them (docs/credentials.md).
 * @module
 */
export {
  hashPassword,
  MAX_PASSWORD_LENGTH,
  needsRehash,
  type PasswordHashOptions,
  verifyPassword,
} from "./lib/crypto/password.js";
