/**
 * The security-log events of two-factor sign-in, members of `SecurityEventTypes` where ./types.ts
 * is in the program; this folder is also compiled where it is not, so the names go through
 * `string` here.
 */
import type { SecurityEventType } from "../security-log/options.js";

/** A first correct code turned two-factor sign-in on. */
export const ENABLED_EVENT = "twoFactorEnabled" as string as SecurityEventType;
/** The user turned it off, with a code. */
export const DISABLED_EVENT = "twoFactorDisabled" as string as SecurityEventType;
/** A backup code finished a challenge. */
export const BACKUP_CODE_USED_EVENT = "backupCodeUsed" as string as SecurityEventType;
/** A new set of backup codes replaced the old one. */
export const BACKUP_CODES_EVENT = "backupCodesRegenerated" as string as SecurityEventType;
/** The operator reset the user's second factors (server API). */
export const RESET_EVENT = "twoFactorReset" as string as SecurityEventType;
/** A right code at the challenge trusted the browser: it is not asked again for 30 days. */
export const TRUSTED_BROWSER_EVENT = "trustedBrowserAdded" as string as SecurityEventType;
