/**
 * What session management adds to the open lists (docs/sessions.md): the security-log event of
 * sessions ended before they expire (by their user, by the server, or when an email sign-in
 * proves an address that was unproven).
 */

declare module "../../types/sessions.js" {
  interface SecurityEventTypes {
    sessionRevoked: true;
  }
}

// A module, so that the declaration above merges into the kernel's rather than declares a new one.
export {};
