/**
 * Gatehouse: authentication for web-standard servers. A `Request` goes in, a `Response` comes out.
 * @module
 */
import { builtins } from "./builtins.js";
import { installFeatures } from "./lib/feature.js";

// The kernel never imports a feature: the entry installs the built-in ones (docs/architecture.md).
installFeatures(builtins);

export { createActionURL } from "./action-url.js";
export { Auth } from "./lib/auth.js";
export {
  hashPassword,
  MAX_PASSWORD_LENGTH,
  needsRehash,
  type PasswordHashOptions,
  verifyPassword,
} from "./lib/crypto/password.js";
export { isDate } from "./lib/dates.js";
export { setEnvDefaults } from "./lib/env.js";
// The members the features add to the open lists (ErrorTypes, SecurityEventTypes, …).
export type {} from "./lib/features/passkeys/types.js";
export type {
  AccessToken,
  GetAccessTokenOptions,
} from "./lib/features/provider-tokens/access-token.js";
export {
  PROVIDER_TOKENS_BUDGET,
  PROVIDER_TOKENS_CLAIM,
  type ProviderTokens,
  storeProviderTokens,
} from "./lib/features/provider-tokens/claim.js";
export { getAccessToken } from "./lib/features/provider-tokens/lazy.js";
export {
  MemoryRateLimitStore,
  type MemoryRateLimitStoreOptions,
} from "./lib/features/rate-limit/memory.js";
export type {} from "./lib/features/rate-limit/types.js";
export {
  type ListSecurityEventsOptions,
  listSecurityEvents,
} from "./lib/features/security-log/list.js";
export type {} from "./lib/features/security-log/types.js";
export {
  listSessions,
  type RevokeUserSessionsOptions,
  revokeSession,
  revokeUserSessions,
} from "./lib/features/sessions/api.js";
export type {} from "./lib/features/sessions/types.js";
export {
  type RecentAuth,
  type RecentAuthOptions,
  requireRecentAuth,
} from "./lib/features/step-up/recent-auth.js";
export type {} from "./lib/features/step-up/types.js";
export type { TwoFactorOptions } from "./lib/features/two-factor/options.js";
export type {} from "./lib/features/two-factor/types.js";
export { type GetSessionOptions, getSession } from "./lib/get-session.js";
export type { SessionRequestInput } from "./lib/request.js";
export { isAuthAction } from "./lib/routes/index.js";
export { clientAddressFallback, customFetch, raw, skipCSRFCheck } from "./lib/symbols.js";
export type { AuthConfig, ResponseInternal } from "./lib/types/config.js";
