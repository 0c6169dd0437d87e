import type { customFetch } from "../symbols.js";
import type { Account, Adapter, Awaitable, Profile, ProviderType, User } from "./models.js";

/** Button styling for a provider on the built-in sign-in page. */
export interface ProviderStyle {
  /** A URL (or `data:` URI) of the provider's logo. Never fetched from a third party by default. */
  logo?: string;
  brandColor?: string;
  bg?: string;
  text?: string;
}

/** A field of the credentials form. Extra attributes are rendered on the `<input>`. */
export interface CredentialInput {
  label?: string;
  type?: string;
  placeholder?: string;
  autocomplete?: string;
  required?: boolean;
  [attribute: string]: unknown;
}

interface CommonProviderConfig {
  id: string;
  name: string;
  type: ProviderType;
}

/** A sign-in by a callback that checks what the user typed (username and password, say). */
export interface CredentialsConfig<
  Fields extends Record<string, CredentialInput> = Record<string, CredentialInput>,
> extends CommonProviderConfig {
  type: "credentials";
  /** The form fields. Only these reach `authorize`. */
  credentials: Fields;
  /**
   * Checks the submitted fields. Return a user to sign in, `null` to refuse, or throw a
   * `CredentialsSignin` subclass to refuse with its own `code`.
   */
  authorize: (
    credentials: Partial<Record<keyof Fields, unknown>>,
    request: Request,
  ) => Awaitable<User | null>;
}

/** An OAuth 2 endpoint: a URL, or a URL with extra query parameters. */
export type EndpointConfig = string | { url?: string; params?: Record<string, unknown> };

/** The token set a provider returned, as Gatehouse passes it to callbacks. */
export interface TokenSet extends Partial<Account> {
  [key: string]: unknown;
}

/** The checks run on an OAuth callback. */
export type OAuthCheck = "pkce" | "state" | "nonce" | "none";

/** An OAuth 2 or OpenID Connect provider. */
export interface OAuthConfig<P extends Profile = Profile> extends CommonProviderConfig {
  type: "oauth" | "oidc";
  issuer?: string;
  wellKnown?: string;
  authorization?: EndpointConfig;
  token?: EndpointConfig;
  userinfo?: EndpointConfig;
  clientId?: string;
  clientSecret?: string;
  client?: { token_endpoint_auth_method?: string; [key: string]: unknown };
  checks?: OAuthCheck[];
  /** Maps the provider's profile to a Gatehouse user. (Method syntax: providers with their own profile type stay assignable to `Provider`.) */
  profile?(profile: P, tokens: TokenSet): Awaitable<User>;
  /** Chooses which token fields are stored on the account. */
  account?: (tokens: TokenSet) => Record<string, unknown> | undefined;
  style?: ProviderStyle;
  /**
   * Links a sign-in to an existing user with the same address. Only addresses that
   * {@link OAuthConfig.emailIsAddress} accepts count, and only into a user whose address was
   * proven (`emailVerified` set). See docs/security.md.
   */
  allowDangerousEmailAccountLinking?: boolean;
  /**
   * Whether the email `profile()` returned came from the provider's email field, so that it may
   * be used to find, link and store users. Default: yes. Gatehouse also requires it to be an
   * address and the profile not to say `email_verified: false`. TikTok answers no for its
   * username fallback. (Method syntax, as for `profile`.)
   */
  emailIsAddress?(profile: P, user: User): boolean;
  redirectProxyUrl?: string;
  /** OIDC only: `false` reads the profile from the userinfo endpoint instead of the ID token. */
  idToken?: boolean;
  /**
   * OIDC only: sign-out also ends the session at the provider (RP-initiated logout, through its
   * `end_session_endpoint`) unless the sign-out asks `federated: false`. Default: only when asked.
   */
  federatedLogout?: boolean;
  /** Replaces `fetch` for this provider's HTTP calls (proxies, logging, tests). */
  [customFetch]?: typeof fetch;
}

/** A passwordless provider that mails a one-time sign-in link. */
export interface EmailConfig extends CommonProviderConfig {
  type: "email";
  from?: string;
  /** Lifetime of a sign-in link, in seconds. */
  maxAge?: number;
  sendVerificationRequest: (params: {
    identifier: string;
    url: string;
    expires: Date;
    provider: EmailConfig;
    token: string;
    theme: unknown;
    request: Request;
    /** The one-time code to type instead of clicking, when the provider sends codes (`code`). */
    code?: string;
  }) => Awaitable<void>;
  /**
   * Scanner-safe links (default `true`): opening the link (`GET`) shows a page with one button,
   * and only its `POST` uses the token and signs in, so a mail scanner that opens links consumes
   * nothing. `false`: the link signs in on `GET`, as in Auth.js.
   */
  confirm?: boolean;
  /**
   * Also send a one-time code the user can type on the verify-request page (default `false`).
   * `true`: 8 digits; or choose the `length` and `alphabet`. The code is stored hashed, expires
   * with the link, dies after 5 wrong tries, and works only in the browser that asked for it.
   */
  code?: boolean | { length?: number; alphabet?: string };
  generateVerificationToken?: () => Awaitable<string>;
  normalizeIdentifier?: (identifier: string) => string;
  secret?: string;
  style?: ProviderStyle;
  /** Transport settings for providers that need them (an SMTP URL or options). */
  server?: unknown;
  /** API key for providers that send through an HTTP mail API. */
  apiKey?: string;
}

/** The WebAuthn relying party: this site. Defaults come from the request. */
export interface RelyingParty {
  /** Default: the request's hostname. */
  id?: string;
  /** Default: the request's host. */
  name?: string;
  /** Default: the request's origin. */
  origin?: string;
}

/** What Auth.js's `getUserInfo` returns. Gatehouse never calls `getUserInfo` (see there). */
export interface WebAuthnUserInfo {
  user: { id?: string; email: string; name?: string | null };
  exists: boolean;
}

/** A passkey / WebAuthn provider (experimental). */
export interface WebAuthnConfig extends CommonProviderConfig {
  type: "webauthn";
  /** The form fields of the sign-in page block (default: one `email` field). */
  formFields?: Record<string, CredentialInput>;
  /** Offer passkeys in the browser's autofill. At most one provider may enable it. */
  enableConditionalUI?: boolean;
  /** Note the Auth.js spelling, kept for compatibility. */
  relayingParty?: RelyingParty;
  /** Ceremony timeout in milliseconds. Default 300000. */
  timeout?: number;
  /** Passed to `generateRegistrationOptions` (e.g. `authenticatorSelection`). */
  registrationOptions?: Record<string, unknown>;
  /** Passed to `generateAuthenticationOptions` (e.g. `userVerification`). */
  authenticationOptions?: Record<string, unknown>;
  /**
   * Ignored: kept so Auth.js configurations compile. It sees only the request's query and body,
   * which anyone can write, so it cannot name a proven user; a ceremony is for the signed-in
   * user, or (a signed-out registration) a new user without an email (docs/security.md).
   * @deprecated Gatehouse never calls it.
   */
  getUserInfo?: (
    provider: WebAuthnConfig,
    request: { query: Record<string, string>; body?: Record<string, unknown> },
    adapter: Adapter,
  ) => Awaitable<WebAuthnUserInfo | null>;
}

/** Any provider configuration. */
/**
 * The configuration of each kind of provider, by type: an open list a sign-in method that brings
 * its own provider type extends by declaration merging (the password provider's module adds
 * `password`).
 */
export interface ProviderConfigs {
  credentials: CredentialsConfig;
  oauth: OAuthConfig;
  email: EmailConfig;
  webauthn: WebAuthnConfig;
}

export type ProviderConfig = ProviderConfigs[keyof ProviderConfigs];

/** A provider as given in `AuthConfig.providers`: the configuration, or a factory returning it. */
export type Provider = ProviderConfig | ((options?: Record<string, unknown>) => ProviderConfig);
