/**
 * What listing and removing passkeys adds to the open lists: the security-log event of a removed
 * passkey (./events.ts).
 */

declare module "../security-log/options.js" {
  interface SecurityEventTypes {
    passkeyRemoved: true;
  }
}

export type {};
