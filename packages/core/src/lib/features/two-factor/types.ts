/**
 * What two-factor sign-in adds to the open lists: the security-log events of enrolment,
 * disabling, backup codes, a reset by the operator and a trusted browser. (Its account row's
 * type, `two-factor`, is no provider type and stays out of `AdapterAccountTypes`: ./store.ts.)
 */

declare module "../security-log/options.js" {
  interface SecurityEventTypes {
    twoFactorEnabled: true;
    twoFactorDisabled: true;
    backupCodeUsed: true;
    backupCodesRegenerated: true;
    twoFactorReset: true;
    trustedBrowserAdded: true;
  }
}

// The options this feature adds to the configuration (AuthConfig, by declaration merging).
export type {} from "./options.js";
