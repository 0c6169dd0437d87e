/**
 * Public types of Gatehouse.
 * @module
 */
export type {
  AuthAction,
  AuthConfig,
  CallbacksOptions,
  Cookie,
  CookieAttributes,
  CookieOption,
  CookiesOptions,
  CustomFetch,
  ErrorPageParam,
  EventCallbacks,
  LoggerInstance,
  PagesOptions,
  PartialCookiesOptions,
  ResponseInternal,
  SessionOptions,
  SessionTrigger,
  SignInPageErrorParam,
  Theme,
  WarningCode,
} from "./lib/types/config.js";
export type { InternalProvider } from "./lib/types/internal.js";
export type { JWTDecodeParams, JWTEncodeParams, JWTOptions } from "./lib/types/jwt.js";
export type {
  Account,
  AdapterUser,
  Authenticator,
  AuthorizationDetails,
  Awaitable,
  DefaultJWT,
  DefaultSession,
  JWT,
  Profile,
  ProviderType,
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
  ProviderStyle,
  TokenSet,
  WebAuthnConfig,
} from "./lib/types/providers.js";
