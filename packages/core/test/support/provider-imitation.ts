/**
 * A stand-in for one OAuth 2 / OpenID Connect provider, on 127.0.0.1, that answers for the
 * provider's REAL origins (`https://github.com`, `https://api.github.com`, ...). Provider tests keep
 * the factory's default URLs and route its HTTP calls here through `[customFetch]`.
 *
 * ```ts
 * const gh = await startImitation({
 *   origins: ["https://github.com", "https://api.github.com"],
 *   authorize: { url: "https://github.com/login/oauth/authorize", pkce: "optional", scope: { separator: " " } },
 *   token: { url: "https://github.com/login/oauth/access_token", auth: "client_secret_post" },
 * });
 * gh.user = { id: 1, login: "octo" };                 // who signs in at the authorize step
 * gh.route("GET", "https://api.github.com/user", ({ grant }) => ({ body: grant!.user }));
 * const provider = GitHub({ clientId: gh.clientId, clientSecret: gh.clientSecret, [customFetch]: gh.fetch });
 * // drive it with signIn() from ./provider-flow.ts; afterEach(() => gh.reset()); afterAll(() => gh.close())
 * ```
 *
 * API (see the types below for every option):
 * - `fetch`: the `[customFetch]` for the provider. A request to one of `origins` goes to the loopback
 *   server with method, path, query, headers and body kept; the host that was meant travels in the
 *   `x-imitation-host` header. Any other URL is refused with a `TypeError` (no outside network).
 * - `authorize(location, decision?)`: the user at the authorization endpoint. Checks the parameters
 *   (client_id, redirect_uri, response_type, scope, state, PKCE S256, nonce, response_mode, and a
 *   custom `check`); a bad one throws {@link AuthorizeRefused} (or, with `onInvalid: "redirect"`,
 *   answers `error=invalid_request`). Returns the browser's way back: `{ url }` for a redirect with
 *   `code` and `state` (or `error=access_denied` with `decision.deny`), or `{ url, form }` for
 *   `response_mode=form_post`. The code is bound to the client, redirect_uri, PKCE challenge, nonce,
 *   scopes and a snapshot of `user` (or `decision.user`).
 * - Token endpoint (`token.url`, POST): form-encoded body, `grant_type=authorization_code`, one-time
 *   codes, matching redirect_uri and client, the PKCE verifier, client authentication by
 *   `client_secret_basic`, `client_secret_post`, `none` or a custom verifier. Errors are RFC 6749
 *   JSON (400; 401 for `invalid_client`) unless `token.error` shapes them. `token.response` changes the
 *   success body, `token.reply` answers it whole. OIDC adds a signed `id_token` when `openid` was asked.
 * - OIDC (`oidc`): discovery at `<issuer>/.well-known/openid-configuration` with `issuer` exactly as
 *   configured, JWKS, ID tokens signed with jose (RS256 or ES256) carrying iss/aud/exp/iat/sub/nonce
 *   plus `oidc.claims(grant)` (default: every claim of the user), an optional userinfo endpoint.
 * - `route(method, url, handler, { bearer })`: an API route on a real URL. With `bearer` (default) the
 *   handler runs only for a live access token, and gets its grant; else 401 (`unauthorized` shapes it).
 *   A handler returns `{ status?, headers?, body? }` (an object body is sent as JSON).
 * - `force(method, url, reply, times?)`: the next `times` (default every) requests to that endpoint get
 *   `reply`, e.g. a 503 from the token endpoint.
 * - `requests`: every request seen (authorize steps included) as {@link RecordedRequest};
 *   `requestsTo(method, url)` filters them.
 * - `issueCode(...)`: a code without the authorize step. `reset()`: forget requests, codes, tokens,
 *   forced replies and restore the initial user. `close()`: stop the server.
 *
 * Note: Gatehouse caches OIDC discovery per `[customFetch]` function. A test that must see
 * discovery happen (or fail) passes a fresh wrapper, `(input, init) => imitation.fetch(input, init)`.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";

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

const HOST_HEADER = "x-imitation-host";

/** Starts an imitation; see the module comment. */
export async function startImitation<U extends Record<string, unknown> = Record<string, unknown>>(
  options: ImitationOptions<U>,
): Promise<Imitation<U>> {
  const origins = new Set(options.origins.map((o) => new URL(o).origin));
  for (const url of [options.authorize.url, options.token.url, options.oidc?.issuer]) {
    if (url && !origins.has(new URL(url).origin)) {
      throw new Error(`${url} is not on one of the imitation's origins`);
    }
  }
  const clientId = options.clientId ?? `client-${random(6)}`;
  const clientSecret = options.clientSecret ?? `secret-${random(18)}`;
  const initialUser = structuredClone(options.user ?? ({} as U));
  const requests: RecordedRequest[] = [];
  const codes = new Map<string, Grant<U>>();
  const accessTokens = new Map<string, Grant<U>>();
  const refreshTokens = new Map<string, Grant<U>>();
  const routes = new Map<string, { handler: RouteHandler<U>; bearer: boolean }>();
  const forced = new Map<string, { reply: Reply; times: number }>();
  const oidc = options.oidc;
  const alg = oidc?.alg ?? "RS256";
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const kid = `k-${random(4)}`;
  const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid, alg, use: "sig" }] };

  const key = (method: string, url: string) => {
    const u = new URL(url);
    return `${method.toUpperCase()} ${u.origin}${u.pathname}`;
  };

  const imitation: Imitation<U> = {
    baseUrl: "",
    clientId,
    clientSecret,
    user: structuredClone(initialUser),
    requests,
    jwks,
    fetch: (async (input: string | URL | Request, init?: RequestInit) => {
      const request = new Request(input, init);
      const target = new URL(request.url);
      if (!origins.has(target.origin)) {
        throw new TypeError(`The imitation refuses ${target.origin}: no outside network in tests`);
      }
      const headers = new Headers(request.headers);
      headers.set(HOST_HEADER, target.host);
      const hasBody = request.method !== "GET" && request.method !== "HEAD";
      return fetch(new URL(target.pathname + target.search, imitation.baseUrl), {
        method: request.method,
        headers,
        body: hasBody ? await request.arrayBuffer() : undefined,
        redirect: init?.redirect ?? "manual",
        signal: init?.signal ?? null,
      });
    }) as typeof fetch,
    requestsTo: (method, url) => {
      const u = new URL(url);
      return requests.filter(
        (r) => r.method === method.toUpperCase() && r.host === u.host && r.path === u.pathname,
      );
    },
    async authorize(location, decision = {}) {
      const url = new URL(location);
      requests.push({
        method: "GET",
        host: url.host,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: {},
        body: "",
      });
      return authorizeStep(url, decision);
    },
    issueCode(partial) {
      const code = `code-${random(18)}`;
      codes.set(code, {
        clientId,
        scopes: [],
        params: {},
        user: structuredClone(imitation.user),
        ...partial,
      });
      return code;
    },
    route(method, url, handler, { bearer = true } = {}) {
      if (!origins.has(new URL(url).origin)) throw new Error(`${url} is not an imitated origin`);
      routes.set(key(method, url), { handler, bearer });
    },
    force(method, url, reply, times = Number.POSITIVE_INFINITY) {
      forced.set(key(method, url), { reply, times });
    },
    signJwt: (payload) =>
      new SignJWT(payload).setProtectedHeader({ alg, kid, typ: "JWT" }).sign(privateKey),
    reset() {
      requests.length = 0;
      codes.clear();
      accessTokens.clear();
      refreshTokens.clear();
      forced.clear();
      imitation.user = structuredClone(initialUser);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };

  function authorizeStep(url: URL, decision: AuthorizeDecision<U>): ProviderAnswer {
    const rules = options.authorize;
    const q = url.searchParams;
    const expected = new URL(rules.url);
    if (url.origin + url.pathname !== expected.origin + expected.pathname) {
      throw new AuthorizeRefused(`Not the authorization endpoint: ${url.origin}${url.pathname}`);
    }
    // Errors about the client or redirect_uri are shown to the user, never redirected.
    if (q.get("client_id") !== clientId)
      throw new AuthorizeRefused("client_id is missing or unknown");
    const redirectUri = q.get("redirect_uri");
    if (!redirectUri || !/^https?:$/.test(new URL(redirectUri).protocol)) {
      throw new AuthorizeRefused("redirect_uri is missing or not http(s)");
    }
    if (rules.redirectUris && !rules.redirectUris.includes(redirectUri)) {
      throw new AuthorizeRefused(`redirect_uri ${redirectUri} is not registered`);
    }
    const responseMode = q.get("response_mode") ?? "query";
    const back = (fields: Record<string, string>): ProviderAnswer => {
      const state = q.get("state");
      const all = { ...fields, ...(state !== null ? { state } : {}), ...decision.extra };
      if (responseMode === "form_post") return { url: new URL(redirectUri), form: all };
      const target = new URL(redirectUri);
      for (const [name, value] of Object.entries(all)) target.searchParams.set(name, value);
      return { url: target };
    };
    const problem = authorizeProblem(q, rules, responseMode);
    if (problem) {
      if (rules.onInvalid === "redirect") {
        return back({ error: problem.error, error_description: problem.description });
      }
      throw new AuthorizeRefused(`${problem.error}: ${problem.description}`);
    }
    if (decision.deny) {
      const error = typeof decision.deny === "string" ? decision.deny : "access_denied";
      return back({ error, error_description: "The user denied the request" });
    }
    const grant: Grant<U> = {
      clientId,
      redirectUri,
      scopes: splitScope(q.get("scope") ?? "", rules.scope?.separator),
      params: Object.fromEntries(q),
      codeChallenge: q.get("code_challenge") ?? undefined,
      nonce: q.get("nonce") ?? undefined,
      user: structuredClone(decision.user ?? imitation.user),
    };
    const code = `code-${random(18)}`;
    codes.set(code, grant);
    return back({ code, ...rules.extra?.(grant) });
  }

  function authorizeProblem(
    q: URLSearchParams,
    rules: AuthorizeRules<U>,
    responseMode: string,
  ): { error: string; description: string } | undefined {
    const invalid = (description: string) => ({ error: "invalid_request", description });
    if (q.get("response_type") !== "code") {
      return { error: "unsupported_response_type", description: "response_type must be code" };
    }
    if (responseMode !== (rules.responseMode ?? "query")) {
      return invalid(`response_mode must be ${rules.responseMode ?? "query"}, got ${responseMode}`);
    }
    if (rules.state && !q.get("state")) return invalid("state is required");
    const challenge = q.get("code_challenge");
    const method = q.get("code_challenge_method");
    if (rules.pkce === "required" && !challenge) return invalid("code_challenge is required");
    if (challenge && method !== "S256") return invalid("code_challenge_method must be S256");
    if (challenge && !/^[\w-]{43}$/.test(challenge)) return invalid("code_challenge is malformed");
    if ((rules.nonce ?? oidc !== undefined) && !q.get("nonce")) return invalid("nonce is required");
    const scope = q.get("scope");
    if ((rules.scope?.required ?? true) && !scope) return invalid("scope is required");
    const scopes = splitScope(scope ?? "", rules.scope?.separator);
    const unknown = rules.scope?.known && scopes.filter((s) => !rules.scope!.known!.includes(s));
    if (unknown?.length) return { error: "invalid_scope", description: `unknown scope ${unknown}` };
    const missing = rules.scope?.include?.filter((s) => !scopes.includes(s));
    if (missing?.length) return { error: "invalid_scope", description: `scope needs ${missing}` };
    const custom = rules.check?.(q);
    return custom ? invalid(custom) : undefined;
  }

  function tokenError(error: string, description: string, status = 400): Reply {
    if (options.token.error) return options.token.error(error, description, status);
    const headers: Record<string, string> =
      status === 401 ? { "www-authenticate": 'Basic realm="token"' } : {};
    return { status, headers, body: { error, error_description: description } };
  }

  async function authenticateClient(credentials: ClientCredentials): Promise<string | undefined> {
    const auth = options.token.auth ?? "client_secret_basic";
    const { form, basic } = credentials;
    if (typeof auth === "function") {
      const verdict = await auth(credentials, imitation as unknown as Imitation);
      return verdict === true ? undefined : verdict || "client authentication failed";
    }
    if (auth === "client_secret_basic") {
      if (form.has("client_secret")) return "client_secret must not be in the body";
      if (!basic) return "Basic authentication is required";
      if (basic.id !== clientId || basic.secret !== clientSecret) return "bad client credentials";
      return undefined;
    }
    if (basic) return `${auth} does not take an Authorization header`;
    if (form.get("client_id") !== clientId) return "client_id is missing or unknown";
    if (auth === "client_secret_post" && form.get("client_secret") !== clientSecret) {
      return "client_secret is missing or wrong";
    }
    if (auth === "none" && form.has("client_secret")) return "a public client sends no secret";
    return undefined;
  }

  async function tokenEndpoint(recorded: RecordedRequest): Promise<Reply> {
    const type = (recorded.headers["content-type"] ?? "").split(";")[0]!.trim();
    if (type !== "application/x-www-form-urlencoded") {
      return tokenError("invalid_request", "the body must be application/x-www-form-urlencoded");
    }
    const form = new URLSearchParams(recorded.body);
    const credentials: ClientCredentials = {
      form,
      headers: recorded.headers,
      basic: parseBasic(recorded.headers.authorization),
    };
    const refused = await authenticateClient(credentials);
    if (refused) return tokenError("invalid_client", refused, 401);
    const grantType = form.get("grant_type");
    let grant: Grant<U> | undefined;
    if (grantType === "authorization_code") {
      const code = form.get("code") ?? "";
      grant = codes.get(code);
      codes.delete(code);
      if (!grant) return tokenError("invalid_grant", "the code is invalid, expired or used");
      if (grant.clientId !== clientId) return tokenError("invalid_grant", "code of another client");
      if (form.get("redirect_uri") !== grant.redirectUri) {
        return tokenError("invalid_grant", "redirect_uri does not match the authorization request");
      }
      const verifier = form.get("code_verifier");
      if (grant.codeChallenge !== undefined) {
        if (!verifier || s256(verifier) !== grant.codeChallenge) {
          return tokenError("invalid_grant", "the code_verifier does not match the challenge");
        }
      } else if (verifier) {
        return tokenError("invalid_request", "code_verifier without a code_challenge");
      }
    } else if (grantType === "refresh_token") {
      grant = refreshTokens.get(form.get("refresh_token") ?? "");
      if (!grant) return tokenError("invalid_grant", "the refresh token is invalid");
    } else {
      return tokenError("unsupported_grant_type", `grant_type ${grantType} is not supported`);
    }
    const accessToken = `at-${random(24)}`;
    accessTokens.set(accessToken, grant);
    const body: Record<string, unknown> = {
      access_token: accessToken,
      token_type: "Bearer",
      scope: grant.scopes.join(options.authorize.scope?.separator ?? " "),
    };
    const expiresIn = options.token.expiresIn === undefined ? 3600 : options.token.expiresIn;
    if (expiresIn !== null) body.expires_in = expiresIn;
    if (options.token.refreshToken ?? true) {
      const refreshToken = `rt-${random(24)}`;
      refreshTokens.set(refreshToken, grant);
      body.refresh_token = refreshToken;
    }
    if (oidc && grant.scopes.includes("openid")) body.id_token = await idToken(grant);
    const shaped = options.token.response?.(body, grant) ?? body;
    return options.token.reply?.(shaped, grant, recorded) ?? { body: shaped };
  }

  async function idToken(grant: Grant<U>): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const claims = oidc!.claims?.(grant) ?? { ...grant.user };
    return imitation.signJwt({
      ...claims,
      iss: oidc!.issuer,
      aud: clientId,
      sub: String(claims.sub ?? grant.user.sub ?? ""),
      iat: now,
      exp: now + (oidc!.idTokenTtl ?? 3600),
      ...(grant.nonce !== undefined ? { nonce: grant.nonce } : {}),
    });
  }

  if (oidc) {
    const issuer = oidc.issuer;
    const discoveryUrl =
      oidc.discoveryUrl ?? `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
    const jwksUrl = oidc.jwksUrl ?? `${new URL(issuer).origin}/jwks`;
    const document = {
      issuer,
      authorization_endpoint: options.authorize.url,
      token_endpoint: options.token.url,
      ...(oidc.userinfoUrl ? { userinfo_endpoint: oidc.userinfoUrl } : {}),
      jwks_uri: jwksUrl,
      response_types_supported: ["code"],
      response_modes_supported: ["query", "form_post"],
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: [alg],
      scopes_supported: options.authorize.scope?.known ?? ["openid", "profile", "email"],
      token_endpoint_auth_methods_supported: [
        typeof options.token.auth === "string" ? options.token.auth : "client_secret_basic",
      ],
      code_challenge_methods_supported: ["S256"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      ...oidc.metadata,
    };
    imitation.route("GET", discoveryUrl, () => ({ body: document }), { bearer: false });
    imitation.route("GET", jwksUrl, () => ({ body: jwks }), { bearer: false });
    if (oidc.userinfoUrl) {
      const answer: RouteHandler<U> = ({ grant }) => ({
        body: oidc.userinfo?.(grant!) ?? { ...grant!.user },
      });
      imitation.route("GET", oidc.userinfoUrl, answer);
      imitation.route("POST", oidc.userinfoUrl, answer);
    }
  }

  async function dispatch(recorded: RecordedRequest, url: URL): Promise<Reply> {
    const k = `${recorded.method} ${url.origin}${url.pathname}`;
    const force = forced.get(k);
    if (force && force.times > 0) {
      force.times -= 1;
      return force.reply;
    }
    if (k === key("POST", options.token.url)) return tokenEndpoint(recorded);
    const route = routes.get(k);
    if (!route) return { status: 404, body: { error: "not_found", path: url.pathname } };
    const bearer = /^Bearer\s+(\S+)$/i.exec(recorded.headers.authorization ?? "")?.[1];
    const grant = bearer ? accessTokens.get(bearer) : undefined;
    if (route.bearer && !grant) {
      return (
        options.unauthorized?.() ?? {
          status: 401,
          headers: { "www-authenticate": 'Bearer error="invalid_token"' },
          body: { error: "invalid_token", error_description: "missing or unknown access token" },
        }
      );
    }
    return route.handler({ url, recorded, grant, accessToken: bearer });
  }

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (name !== HOST_HEADER && name !== "host") {
        headers[name] = Array.isArray(value) ? value.join(", ") : (value ?? "");
      }
    }
    const host = String(req.headers[HOST_HEADER] ?? "");
    const scheme = [...origins].find((o) => new URL(o).host === host);
    const url = new URL(req.url ?? "/", scheme ?? "https://unknown.invalid");
    const recorded: RecordedRequest = {
      method: req.method ?? "GET",
      host,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers,
      body: Buffer.concat(chunks).toString("utf8"),
    };
    requests.push(recorded);
    let reply: Reply;
    try {
      reply = scheme
        ? await dispatch(recorded, url)
        : { status: 421, body: { error: "unknown host", host } };
    } catch (error) {
      reply = { status: 500, body: { error: "server_error", error_description: String(error) } };
    }
    const isText = typeof reply.body === "string";
    const out = { ...reply.headers };
    if (reply.body !== undefined && !Object.keys(out).some((h) => /^content-type$/i.test(h))) {
      out["content-type"] = isText ? "text/plain; charset=utf-8" : "application/json";
    }
    res.writeHead(reply.status ?? 200, out);
    res.end(
      reply.body === undefined ? undefined : isText ? reply.body : JSON.stringify(reply.body),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  imitation.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return imitation;
}

function splitScope(scope: string, separator: " " | "," = " "): string[] {
  return scope.split(separator === "," ? /[ ,]+/ : / +/).filter(Boolean);
}

function parseBasic(header: string | undefined): { id: string; secret: string } | undefined {
  const match = /^Basic\s+(\S+)$/i.exec(header ?? "");
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  const formDecode = (s: string) => decodeURIComponent(s.replace(/\+/g, "%20"));
  try {
    return {
      id: formDecode(decoded.slice(0, colon)),
      secret: formDecode(decoded.slice(colon + 1)),
    };
  } catch {
    return undefined;
  }
}

function s256(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

function random(bytes: number): string {
  return randomBytes(bytes).toString("base64url");
}
