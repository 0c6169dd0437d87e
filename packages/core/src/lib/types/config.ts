import type { raw, skipCSRFCheck } from "../symbols.js";
import type { ClientAddressResolver, TrustedProxies } from "./client-address.js";
import type { JWTOptions } from "./jwt.js";
import type {
  Account,
  Adapter,
  AdapterSession,
  AdapterUser,
  Awaitable,
  JWT,
  Profile,
  Session,
  User,
} from "./models.js";
import type { Provider } from "./providers.js";

/** Theme of the built-in pages. */
export interface Theme {
  colorScheme?: "auto" | "dark" | "light";
  /** URL of a logo shown above the card. */
  logo?: string;
  brandColor?: string;
  buttonText?: string;
}

/** Custom page paths. Each one replaces the built-in page with a redirect. */
export interface PagesOptions {
  signIn?: string;
  signOut?: string;
  error?: string;
  verifyRequest?: string;
  /**
   * Your page for an opened email sign-in link (scanner-safe links): it receives `provider`,
   * `token`, `email` and `callbackUrl` in its query and must POST them, with a CSRF token, to
   * `<basePath>/callback/<provider>`. Default: the built-in page with one button.
   */
  emailConfirm?: string;
  /** Where a user goes after their first sign-in. */
  newUser?: string;
}

/** Attributes of one cookie. */
export interface CookieAttributes {
  httpOnly?: boolean;
  sameSite?: "lax" | "strict" | "none";
  path?: string;
  secure?: boolean;
  domain?: string;
  maxAge?: number;
  expires?: Date;
  partitioned?: boolean;
  priority?: "low" | "medium" | "high";
}

/** A cookie's name and attributes. */
export interface CookieOption {
  name: string;
  options: CookieAttributes;
}

/**
 * Every cookie Gatehouse writes, by key. An interface, so that a feature (or an app's own
 * extension) declares the cookies it adds by declaration merging, and `cookies` in the
 * configuration then accepts overrides of them.
 */
export interface CookiesOptions {
  sessionToken: CookieOption;
  callbackUrl: CookieOption;
  csrfToken: CookieOption;
  pkceCodeVerifier: CookieOption;
  state: CookieOption;
  nonce: CookieOption;
  webauthnChallenge: CookieOption;
  /**
   * Binds an email sign-in code to the browser that asked for it (Gatehouse; set only when an
   * email provider sends codes).
   */
  emailCode: CookieOption;
  /**
   * Carries a sign-in that waits on a further step (a second factor, say) to that step's page:
   * encrypted, short-lived, and only ever in this browser (Gatehouse).
   */
  signInChallenge: CookieOption;
  /**
   * Binds `signInChallenge` to the browser it was sent to: a random value whose hash is sealed in
   * the challenge, so the challenge cookie copied alone into another browser holds no sign-in
   * (Gatehouse; written and deleted with `signInChallenge`).
   */
  signInBinding: CookieOption;
  /**
   * A browser the user trusted at the two-factor challenge ("don't ask again on this browser for
   * 30 days"): encrypted with the configured secret, bound to the user, listed and revocable on
   * the two-factor settings (Gatehouse; set only with `twoFactor`).
   */
  twoFactorTrust: CookieOption;
}

/** Overrides of the default cookies: any name, any attribute. */
export type PartialCookiesOptions = {
  [K in keyof CookiesOptions]?: { name?: string; options?: CookieAttributes };
};

/** Why the session callback or the jwt callback is running. */
export type SessionTrigger = "signIn" | "signUp" | "update";

/**
 * The session the `session` callback receives under the database strategy: the stored session
 * row without its token (which stays in its HttpOnly cookie), and the stored user.
 */
export interface DatabaseSession extends Omit<AdapterSession, "sessionToken"> {
  /** The stored user. Pick what the client may see; `{ ...user }` publishes every column. */
  user: AdapterUser;
  /** Never here: the session token stays in its HttpOnly cookie. */
  sessionToken?: undefined;
  /** Columns the adapter adds to a session row (an `id`, say). */
  [column: string]: unknown;
}

/** What the `session` callback receives under the JWT strategy. */
export interface JWTSessionCallbackParams {
  strategy: "jwt";
  /** The default session built from the token: `user` holds its `name`, `email` and `picture`. */
  session: Session;
  /** The token, as the `jwt` callback returned it. */
  token: JWT;
  user?: undefined;
  newSession?: undefined;
  trigger?: undefined;
}

/** What the `session` callback receives under the database strategy. */
export interface DatabaseSessionCallbackParams {
  strategy: "database";
  session: DatabaseSession;
  /** The stored user (the same as `session.user`). */
  user: AdapterUser;
  token?: undefined;
  /** On `POST /session`: the `data` the client sent. Untrusted: validate it. */
  newSession?: unknown;
  /** `"update"` on `POST /session`. */
  trigger?: "update";
}

/**
 * The `session` callback's parameters: a union on `strategy`, so that `token` is there under
 * JWT sessions and `user` under database sessions.
 */
export type SessionCallbackParams = JWTSessionCallbackParams | DatabaseSessionCallbackParams;

/**
 * What the `session` callback returns: a {@link Session}, whose `expires` may also be a `Date`
 * (as under the database strategy); the client receives its ISO 8601 string.
 */
export type SessionCallbackResult = {
  [K in keyof Session]: K extends "expires" ? string | Date : Session[K];
};

/** Callbacks that steer what Gatehouse does. */
export interface CallbacksOptions {
  /** Decide whether a sign-in may go on: `true`, `false`, or a URL to redirect to. */
  signIn?: (params: {
    user: User | AdapterUser;
    account: Account | null;
    profile?: Profile;
    email?: { verificationRequest?: boolean };
    credentials?: Record<string, unknown>;
  }) => Awaitable<boolean | string>;
  /** Decide where a callback URL may send the user. Default: same origin only. */
  redirect?: (params: { url: string; baseUrl: string }) => Awaitable<string>;
  /**
   * Shape the session the client sees: the return value is what `GET /session` answers. Its
   * parameters depend on the session strategy: narrow on `strategy` (or on `token` / `user`)
   * before reading `token` or `user`. A callback that throws answers `null` and is logged.
   *
   * @example
   * ```ts
   * session({ strategy, session, token, user }) {
   *   const id = strategy === "jwt" ? token.sub : user.id;
   *   return { ...session, user: { ...session.user, id } };
   * }
   * ```
   */
  session?: (params: SessionCallbackParams) => Awaitable<SessionCallbackResult>;
  /** Shape the JWT saved in the session cookie. Return `null` to end the session. */
  jwt?: (params: {
    token: JWT;
    /** Present when `trigger` is `signIn` or `signUp`. */
    user?: User | AdapterUser;
    /** Present when `trigger` is `signIn` or `signUp`. */
    account?: Account | null;
    profile?: Profile;
    trigger?: SessionTrigger;
    /** @deprecated use `trigger === "signUp"` */
    isNewUser?: boolean;
    session?: unknown;
  }) => Awaitable<JWT | null>;
}

/** Audit and debug hooks. Errors they throw are logged and ignored. */
export interface EventCallbacks {
  signIn?: (message: {
    user: User;
    account?: Account | null;
    profile?: Profile;
    isNewUser?: boolean;
  }) => Awaitable<void>;
  signOut?: (
    message: { session: AdapterSession | null | undefined | void } | { token: JWT | null },
  ) => Awaitable<void>;
  createUser?: (message: { user: User }) => Awaitable<void>;
  updateUser?: (message: { user: User }) => Awaitable<void>;
  linkAccount?: (message: {
    user: User | AdapterUser;
    account: Account;
    profile: User | AdapterUser;
  }) => Awaitable<void>;
  /** `token` is present with JWT sessions only. */
  session?: (message: { session: Session; token?: JWT }) => Awaitable<void>;
}

/**
 * The warning codes, as the keys of an interface a feature extends by declaration merging (the
 * rate-limit feature's `untrusted-forwarded-for` is in features/rate-limit/types.ts).
 */
export interface WarningCodes {
  "debug-enabled": true;
  "csrf-disabled": true;
  "env-url-basepath-redundant": true;
  "env-url-basepath-mismatch": true;
  "experimental-webauthn": true;
  "weak-secret": true;
  "client-error": true;
}

/** Warning codes the logger's `warn` receives. */
export type WarningCode = keyof WarningCodes;

/** Where Gatehouse writes its log lines. Missing levels fall back to the built-in logger. */
export interface LoggerInstance {
  error: (error: Error) => void;
  /**
   * A warning. `client-error` warnings carry the client's mistake (an unknown path, a bad form,
   * a wrong password) as `detail`: logged once, never at error level.
   */
  warn: (code: WarningCode, detail?: Error) => void;
  debug: (message: string, metadata?: unknown) => void;
}

/** Session behaviour. */
export interface SessionOptions {
  strategy: "jwt" | "database";
  /** Seconds until an idle session expires. Default 30 days. */
  maxAge: number;
  /** Seconds between session extensions (and writes). 0 extends on every access. Default 1 day. */
  updateAge: number;
  /** Makes the token of a database session. Default: a random UUID. */
  generateSessionToken: () => string;
  /** Record the client's address (truncated: IPv4 /24, IPv6 /48) with sessions and events. Default false. */
  recordIp?: boolean;
}

/**
 * The configuration of {@link Auth}. The built-in features add their own keys in their folders'
 * `options.ts`, by declaration merging: `rateLimit` (features/rate-limit), `securityLog`
 * (features/security-log) and `session.revocation` (features/sessions).
 */
export interface AuthConfig {
  providers: Provider[];
  adapter?: Adapter;
  /** Path the handler is mounted on. Default `/auth`. */
  basePath?: string;
  callbacks?: CallbacksOptions;
  events?: EventCallbacks;
  cookies?: PartialCookiesOptions;
  debug?: boolean;
  experimental?: { enableWebAuthn?: boolean };
  jwt?: Partial<JWTOptions>;
  logger?: Partial<LoggerInstance>;
  pages?: PagesOptions;
  raw?: typeof raw;
  /**
   * The URL of a stable deployment that receives every OAuth callback for preview deployments
   * (`AUTH_REDIRECT_PROXY_URL`). It forwards a callback only to an origin listed in
   * {@link AuthConfig.redirectProxyOrigins}.
   */
  redirectProxyUrl?: string;
  /**
   * The origins the redirect proxy may forward callbacks to: exact origins
   * (`https://preview.example.com`) or one wildcard label on the left
   * (`https://*.preview.example.com`). Default: none (`AUTH_REDIRECT_PROXY_ORIGINS`, comma-separated).
   */
  redirectProxyOrigins?: string[];
  /**
   * The proxies in front of the app, whose `X-Forwarded-For` entries are trusted: a count or CIDR
   * ranges (`AUTH_TRUSTED_PROXIES`). Unset: `X-Forwarded-For` is never read.
   */
  trustedProxies?: TrustedProxies;
  /** The client's address on platforms that give it another way than `X-Forwarded-For`. */
  clientAddress?: ClientAddressResolver;
  /** The secret, or a list of secrets: the first signs and encrypts, all are accepted. */
  secret?: string | string[];
  session?: Partial<SessionOptions>;
  skipCSRFCheck?: typeof skipCSRFCheck;
  theme?: Theme;
  /**
   * Trust the request's `Host` (and, with {@link AuthConfig.url}, `X-Forwarded-Host`) header.
   * Needed when `url` is not set. Default: `AUTH_TRUST_HOST`, or true on Vercel and Cloudflare Pages.
   */
  trustHost?: boolean;
  /**
   * The site's public URL, such as `https://example.com` (default: `AUTH_URL`). When set, every
   * absolute URL Gatehouse builds (email links, OAuth `redirect_uri`, the WebAuthn relying party)
   * and the secure-cookie decision come from it, and a request for another host is answered
   * `400`. A path in it becomes `basePath` unless `basePath` is set.
   */
  url?: string | URL;
  useSecureCookies?: boolean;
}

/** The internal response, returned as is when `config.raw` is set. */
export interface ResponseInternal<Body = unknown> {
  status?: number;
  headers?: Record<string, string>;
  body?: Body;
  redirect?: string;
  cookies?: Cookie[];
}

/** A cookie to set, as carried by {@link ResponseInternal}. */
export interface Cookie {
  name: string;
  value: string;
  options: CookieAttributes;
}

/** A `fetch` implementation, as set with the `customFetch` symbol. */
export type CustomFetch = typeof fetch;

/** The error values that may appear in `?error=` on the error page. */
export type ErrorPageParam =
  | "Configuration"
  | "AccessDenied"
  | "Verification"
  | "InvalidCallbackUrl"
  | "SessionStoreUnavailable";

/**
 * The sign-in page's error values, as the keys of an interface a feature extends by declaration
 * merging (the rate-limit feature's `RateLimited` is in features/rate-limit/types.ts). A feature
 * that adds one gives the page its message too (lib/pages/sign-in-errors.ts).
 */
export interface SignInPageErrors {
  Signin: true;
  OAuthSignin: true;
  OAuthCallbackError: true;
  OAuthCreateAccount: true;
  EmailCreateAccount: true;
  Callback: true;
  OAuthAccountNotLinked: true;
  EmailSignin: true;
  CredentialsSignin: true;
  SessionRequired: true;
  MissingCSRF: true;
  AccountNotLinked: true;
}

/** The error values that may appear in `?error=` on the sign-in page. */
export type SignInPageErrorParam = keyof SignInPageErrors;
