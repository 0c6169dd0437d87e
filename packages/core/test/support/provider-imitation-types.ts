/**
 * The types of the provider imitation (see provider-imitation.ts for how it behaves).
 */
import type { JWK } from "jose";

/** One request as the imitation saw it. `host` is the real host it was meant for. */
export interface RecordedRequest {
  method: string;
  host: string;
  path: string;
  query: Record<string, string>;
  /** Lowercase names; the routing header is removed. */
  headers: Record<string, string>;
  body: string;
}

/** An answer: JSON when `body` is an object, text when a string. */
export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** What the authorize step bound a code (and then its tokens) to. */
export interface Grant<U = Record<string, unknown>> {
  clientId: string;
  redirectUri: string;
  scopes: string[];
  /** Every authorization parameter, as sent. */
  params: Record<string, string>;
  codeChallenge?: string;
  nonce?: string;
  /** The user who consented (a copy). */
  user: U;
}

/** How the token endpoint authenticated the client: the parsed credentials. */
export interface ClientCredentials {
  form: URLSearchParams;
  headers: Record<string, string>;
  /** From an `Authorization: Basic` header, URL-decoded as RFC 6749 2.3.1 says. */
  basic?: { id: string; secret: string };
}

export type ClientAuth =
  | "client_secret_basic"
  | "client_secret_post"
  | "none"
  /** A custom check (Apple's JWT secret): return true, or a reason to refuse with invalid_client. */
  | ((
      credentials: ClientCredentials,
      imitation: Imitation,
    ) => boolean | string | Promise<boolean | string>);

export interface AuthorizeRules<U> {
  /** The real URL of the authorization endpoint (query parameters of its own are ignored). */
  url: string;
  /** `required`: code_challenge with S256 must be present. `optional` (default): checked when sent. */
  pkce?: "required" | "optional";
  /** Require `state` (default false: the client's choice). */
  state?: boolean;
  /** Require `nonce` (default: true for OIDC). */
  nonce?: boolean;
  /** The `response_mode` the client must send (e.g. `form_post`); absent means query. */
  responseMode?: "query" | "form_post";
  scope?: {
    /** Default true. */
    required?: boolean;
    /** Default " ". */
    separator?: " " | ",";
    /** Scopes the provider knows; others are refused with invalid_scope. */
    known?: string[];
    /** Scopes that must be present (e.g. `openid`). */
    include?: string[];
  };
  /** Exact redirect URIs registered for the client; absent accepts any http(s) URL. */
  redirectUris?: string[];
  /** A provider-specific rule: return a problem to refuse with it. */
  check?: (params: URLSearchParams) => string | undefined;
  /** A bad request throws (default) or redirects back with `error=invalid_request`. */
  onInvalid?: "throw" | "redirect";
  /** Extra parameters on the way back (`iss`, say). */
  extra?: (grant: Grant<U>) => Record<string, string>;
}

export interface TokenRules<U> {
  url: string;
  /** Default `client_secret_basic`. */
  auth?: ClientAuth;
  /** Access token lifetime in seconds (default 3600); `null` omits `expires_in`. */
  expiresIn?: number | null;
  /** Issue a refresh token (default true). */
  refreshToken?: boolean;
  /** Changes the success body (add, remove or rename fields). */
  response?: (body: Record<string, unknown>, grant: Grant<U>) => Record<string, unknown>;
  /** Answers the success whole (another content type, say), from the (changed) body. */
  reply?: (body: Record<string, unknown>, grant: Grant<U>, request: RecordedRequest) => Reply;
  /** Shapes an error the token endpoint raises; default RFC 6749 JSON. */
  error?: (error: string, description: string, status: number) => Reply;
}

export interface OidcRules<U> {
  /** Exactly as the provider writes it, e.g. `https://accounts.google.com`. */
  issuer: string;
  /** Default RS256. */
  alg?: "RS256" | "ES256";
  /** Default `${issuer}/.well-known/openid-configuration` (path-aware, no double slash). */
  discoveryUrl?: string;
  /** Default `${origin of issuer}/jwks`. */
  jwksUrl?: string;
  /** An OIDC userinfo endpoint answering the user's claims for a Bearer token. */
  userinfoUrl?: string;
  /** Claims added to the ID token (default: every field of the user). `sub` comes from the user. */
  claims?: (grant: Grant<U>) => Record<string, unknown>;
  /** Claims of the userinfo answer (default: every field of the user). */
  userinfo?: (grant: Grant<U>) => Record<string, unknown>;
  /** ID token lifetime (default 3600 s). */
  idTokenTtl?: number;
  /** Added to (or overriding) the discovery document. */
  metadata?: Record<string, unknown>;
}

export interface ImitationOptions<U> {
  /** Real origins served, e.g. `["https://github.com", "https://api.github.com"]`. */
  origins: string[];
  authorize: AuthorizeRules<U>;
  token: TokenRules<U>;
  oidc?: OidcRules<U>;
  clientId?: string;
  clientSecret?: string;
  /** Who signs in at the authorize step until the test sets `user`. */
  user?: U;
  /** The answer to a missing or unknown Bearer token on a route (default RFC 6750 401). */
  unauthorized?: () => Reply;
}

/** What the user does at the authorize step. */
export interface AuthorizeDecision<U> {
  /** Refuse consent: `error=access_denied` (or this error code). */
  deny?: boolean | string;
  /** Sign in as this user instead of `imitation.user`. */
  user?: U;
  /** Fields added to the answer (Apple's `user` form field, say). */
  extra?: Record<string, string>;
}

/** The browser's way back to the client: a GET of `url`, or a POST of `form` to it. */
export interface ProviderAnswer {
  url: URL;
  form?: Record<string, string>;
}

/** The authorize step refused the request without going back to the client. */
export class AuthorizeRefused extends Error {
  override name = "AuthorizeRefused";
}

export type RouteHandler<U> = (request: {
  url: URL;
  recorded: RecordedRequest;
  /** The grant of the Bearer token (routes with `bearer: false` may get undefined). */
  grant: Grant<U> | undefined;
  accessToken: string | undefined;
}) => Reply | Promise<Reply>;

export interface Imitation<U = Record<string, unknown>> {
  /** `http://127.0.0.1:<port>`. */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** The `[customFetch]` for the provider. */
  fetch: typeof fetch;
  /** Who signs in at the next authorize step. */
  user: U;
  requests: RecordedRequest[];
  requestsTo(method: string, url: string): RecordedRequest[];
  authorize(location: string | URL, decision?: AuthorizeDecision<U>): Promise<ProviderAnswer>;
  issueCode(grant: Partial<Grant<U>> & { redirectUri: string }): string;
  route(
    method: string,
    url: string,
    handler: RouteHandler<U>,
    options?: { bearer?: boolean },
  ): void;
  force(method: string, url: string, reply: Reply, times?: number): void;
  /** Signs any payload with the OIDC key (for forged ID tokens). */
  signJwt(payload: Record<string, unknown>): Promise<string>;
  /** The OIDC public key set. */
  jwks: { keys: JWK[] };
  reset(): void;
  close(): Promise<void>;
}
