/** The security-log event of this feature (a member of `SecurityEventTypes`: ./types.ts). */
import type { SecurityEventType } from "../security-log/options.js";

/** The signed-in user removed one of their passkeys (the provider is the passkey's). */
export const PASSKEY_REMOVED_EVENT: SecurityEventType = "passkeyRemoved";
