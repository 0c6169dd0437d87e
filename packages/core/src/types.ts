/**
 * Public types of Gatehouse.
 * @module
 */

export type { AuthAction } from "./builtins.js";
export type { ErrorType, ErrorTypes } from "./lib/errors.js";
// What the built-in features add to the open lists (SecurityEventTypes, WarningCodes,
// SignInPageErrors): these keep every member in the program of whoever imports this entry.
export type {} from "./lib/features/passkeys/types.js";
export type {
  BackoffRule,
  ClientRateLimit,
  CredentialsRateLimit,
  EmailRateLimit,
  RateLimitCount,
  RateLimitOptions,
  RateLimitRule,
  RateLimitStore,
} from "./lib/features/rate-limit/options.js";
export type {} from "./lib/features/rate-limit/types.js";
export type {
  SecurityEvent,
  SecurityEventStore,
  SecurityEventType,
  SecurityEventTypes,
  SecurityLogOptions,
} from "./lib/features/security-log/options.js";
export type {} from "./lib/features/security-log/types.js";
export type {
  RevocationOptions,
  RevocationSessionRecord,
  RevocationStore,
  SessionInfo,
} from "./lib/features/sessions/options.js";
export type {} from "./lib/features/sessions/types.js";
export type {} from "./lib/features/step-up/types.js";
export type {} from "./lib/features/two-factor/errors.js";
export type { TwoFactorOptions } from "./lib/features/two-factor/options.js";
export type {} from "./lib/features/two-factor/types.js";
export type {
  ClientAddressResolver,
  TrustedProxies,
} from "./lib/types/client-address.js";
export type {
  AuthConfig,
  CallbacksOptions,
  Cookie,
  CookieAttributes,
  CookieOption,
  CookiesOptions,
  CustomFetch,
  DatabaseSession,
  DatabaseSessionCallbackParams,
  ErrorPageParam,
  EventCallbacks,
  JWTSessionCallbackParams,
  LoggerInstance,
  PagesOptions,
  PartialCookiesOptions,
  ResponseInternal,
  SessionCallbackParams,
  SessionCallbackResult,
  SessionOptions,
  SessionTrigger,
  SignInPageErrorParam,
  SignInPageErrors,
  Theme,
  WarningCode,
  WarningCodes,
} from "./lib/types/config.js";
export type { InternalProvider } from "./lib/types/internal.js";
export type { JWTDecodeParams, JWTEncodeParams, JWTOptions } from "./lib/types/jwt.js";
export type {
  Account,
  AdapterAccountType,
  AdapterAccountTypes,
  AdapterUser,
  Authenticator,
  AuthorizationDetails,
  Awaitable,
  DefaultJWT,
  DefaultSession,
  DefaultUser,
  JWT,
  Profile,
  ProviderType,
  ProviderTypes,
  Session,
  User,
} from "./lib/types/models.js";
export type {
  CredentialInput,
  CredentialsConfig,
  EmailConfig,
  EndpointConfig,
  OAuthCheck,
  OAuthConfig,
  Provider,
  ProviderConfig,
  ProviderConfigs,
  ProviderStyle,
  TokenSet,
  WebAuthnConfig,
} from "./lib/types/providers.js";
export type { SessionMetadata } from "./lib/types/sessions.js";
