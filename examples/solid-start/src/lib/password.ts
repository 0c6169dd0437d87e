/**
 * The app's password hashes: Gatehouse's scrypt helpers. Hashes this file wrote before
 * (`scrypt$<salt>$<hash>`) still verify, and are replaced at the user's next sign-in (see
 * `checkPassword` in ./auth.ts).
 */
export { hashPassword, needsRehash, verifyPassword } from "@gatehousejs/core/password";
