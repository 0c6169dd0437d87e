/**
 * What the security activity log adds to the open lists (docs/sessions.md): the events it records
 * when it hears a sign-in, a refused sign-in, a sign-out, a linked account or a verified address.
 */

declare module "./options.js" {
  interface SecurityEventTypes {
    signIn: true;
    signInFailed: true;
    signOut: true;
    accountLinked: true;
    emailVerified: true;
  }
}

// The options this feature adds to the configuration (AuthConfig, by declaration merging).
export type {} from "./options.js";
