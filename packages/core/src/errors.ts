/**
 * The Gatehouse error tree: every error is an `AuthError` with a closed `type`.
 * @module
 */

export type { ErrorKind, ErrorType } from "./lib/errors.js";
export {
  AccessDenied,
  AccountNotLinked,
  AdapterError,
  AuthError,
  CallbackRouteError,
  CredentialsSignin,
  DuplicateConditionalUI,
  EmailSignInError,
  ErrorPageLoop,
  EventError,
  ExperimentalFeatureNotEnabled,
  InvalidCallbackUrl,
  InvalidCheck,
  InvalidEndpoints,
  InvalidProvider,
  isClientError,
  JWTSessionError,
  MissingAdapter,
  MissingAdapterMethods,
  MissingAuthorize,
  MissingCSRF,
  MissingSecret,
  MissingWebAuthnAutocomplete,
  OAuthAccountNotLinked,
  OAuthCallbackError,
  OAuthProfileParseError,
  OAuthSignInError,
  RefreshTokenError,
  SessionTokenError,
  SignInError,
  SignOutError,
  UnknownAction,
  UnsupportedStrategy,
  UntrustedHost,
  Verification,
  WebAuthnVerificationError,
} from "./lib/errors.js";
