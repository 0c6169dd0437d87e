/**
 * What session management adds to the open lists (docs/sessions.md): the security-log event of
 * sessions ended before they expire (by their user, by the server, or when an email sign-in
 * proves an address that was unproven).
 */

declare module "../security-log/options.js" {
  interface SecurityEventTypes {
    sessionRevoked: true;
  }
}

// The options this feature adds to the configuration (AuthConfig, by declaration merging).
export type {} from "./options.js";
