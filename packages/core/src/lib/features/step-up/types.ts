/**
 * What step-up adds to the open lists: the security-log event of a sensitive action sent to sign
 * in again (./fresh-proof.ts).
 */

declare module "../security-log/options.js" {
  interface SecurityEventTypes {
    stepUpRequired: true;
  }
}

export type {};
