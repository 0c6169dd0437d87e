/**
 * The security-log events of a signed-in user's account changes: `emailChanged`, `passwordSet`
 * and `passwordRemoved`, members of `SecurityEventTypes` where the provider's module (./types.ts)
 * is in the program. This folder is also compiled where it is not (the built-ins are in every
 * program), so the names go through `string` here, as in ./store.ts.
 */
import type { SecurityEventType } from "../security-log/options.js";

/** The user's address changed through the link mailed to the new one; every session ended. */
export const EMAIL_CHANGED_EVENT = "emailChanged" as string as SecurityEventType;
/** A signed-in user without a password set one. */
export const PASSWORD_SET_EVENT = "passwordSet" as string as SecurityEventType;
/** A signed-in user removed their password; every other session ended. */
export const PASSWORD_REMOVED_EVENT = "passwordRemoved" as string as SecurityEventType;
