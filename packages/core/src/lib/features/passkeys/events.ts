/**
 * The security-log event of this feature. It is not yet a member of the open list
 * `SecurityEventTypes`, so the name goes through `string`.
 */
import type { SecurityEventType } from "../security-log/options.js";

/** The signed-in user removed one of their passkeys (the provider is the passkey's). */
export const PASSKEY_REMOVED_EVENT = "passkeyRemoved" as string as SecurityEventType;
