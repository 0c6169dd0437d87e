/**
 * The security-log events of a signed-in user's account changes: `emailChanged`, `passwordSet`
 * and `passwordRemoved`. They are recorded under these names but are not yet members of
 * `SecurityEventTypes` (./types.ts): the security-event store suite (packages/adapter-test) lists
 * every member and must gain them in the same change, so until then they go through `string`.
 */
import type { SecurityEventType } from "../security-log/options.js";

/** The user's address changed through the link mailed to the new one; every session ended. */
export const EMAIL_CHANGED_EVENT = "emailChanged" as string as SecurityEventType;
/** A signed-in user without a password set one. */
export const PASSWORD_SET_EVENT = "passwordSet" as string as SecurityEventType;
/** A signed-in user removed their password; every other session ended. */
export const PASSWORD_REMOVED_EVENT = "passwordRemoved" as string as SecurityEventType;
