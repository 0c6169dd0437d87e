/**
 * What the security activity log adds to the open lists (docs/sessions.md): the events it records
 * when it hears a sign-in, a refused sign-in, a sign-out, a linked account or a verified address.
 */

declare module "../../types/sessions.js" {
  interface SecurityEventTypes {
    signIn: true;
    signInFailed: true;
    signOut: true;
    accountLinked: true;
    emailVerified: true;
  }
}

// A module, so that the declaration above merges into the kernel's rather than declares a new one.
export {};
