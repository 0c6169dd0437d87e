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
 *   For an uninvoked factory (`providers: [GitHub]`), `vi.stubGlobal("fetch", imitation.fetch)`
 *   works too: the imitation keeps the fetch it found when it started.
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
 */ import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import {
  authorizeProblem,
  clientAuthProblem,
  parseBasic,
  random,
  s256,
  splitScope,
} from "./provider-imitation-rules.js";
import {
  type AuthorizeDecision,
  AuthorizeRefused,
  type ClientCredentials,
  type Grant,
  type Imitation,
  type ImitationOptions,
  type ProviderAnswer,
  type RecordedRequest,
  type Reply,
  type RouteHandler,
} from "./provider-imitation-types.js";

export {
  type AuthorizeDecision,
  AuthorizeRefused,
  type AuthorizeRules,
  type ClientAuth,
  type ClientCredentials,
  type Grant,
  type Imitation,
  type ImitationOptions,
  type OidcRules,
  type ProviderAnswer,
  type RecordedRequest,
  type Reply,
  type RouteHandler,
  type TokenRules,
} from "./provider-imitation-types.js";

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
  // The real fetch, taken now: a test may later stub the global one with `imitation.fetch`.
  const upstream = globalThis.fetch;
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
      return upstream(new URL(target.pathname + target.search, imitation.baseUrl), {
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
    if (
      !redirectUri ||
      !URL.canParse(redirectUri) ||
      !/^https?:$/.test(new URL(redirectUri).protocol)
    ) {
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
    const problem = authorizeProblem(q, rules, responseMode, oidc !== undefined);
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

  function tokenError(error: string, description: string, status = 400): Reply {
    if (options.token.error) return options.token.error(error, description, status);
    const headers: Record<string, string> =
      status === 401 ? { "www-authenticate": 'Basic realm="token"' } : {};
    return { status, headers, body: { error, error_description: description } };
  }

  async function authenticateClient(credentials: ClientCredentials): Promise<string | undefined> {
    const auth = options.token.auth ?? "client_secret_basic";
    if (typeof auth === "function") {
      const verdict = await auth(credentials, imitation as unknown as Imitation);
      return verdict === true ? undefined : verdict || "client authentication failed";
    }
    return clientAuthProblem(auth, credentials, { clientId, clientSecret });
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
