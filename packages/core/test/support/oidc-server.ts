/**
 * A real OpenID provider for tests: panva's certified `oidc-provider` on 127.0.0.1, with statically
 * registered clients for each token endpoint auth method and a non-interactive login, so a test can
 * drive a whole authorization code flow with plain `fetch` (see {@link authorize}).
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose";
import Provider, {
  type Adapter,
  type AdapterPayload,
  type ClientMetadata,
  type Configuration,
  type KoaContextWithOIDC,
} from "oidc-provider";

/** The statically registered clients. */
export type OidcClientName = "basic" | "post" | "public" | "formpost";

export interface OidcClient {
  clientId: string;
  /** Absent for the public client. */
  clientSecret?: string;
  tokenEndpointAuthMethod: "client_secret_basic" | "client_secret_post" | "none";
}

/** Endpoint failures that {@link OidcServer.failNext} can inject. */
export type OidcFailure = "token500" | "userinfo500";

export interface OidcServerOptions {
  /** Redirect URIs registered on every client, in addition to the defaults. */
  redirectUris?: string[];
  /**
   * Only accept registered redirect URIs. By default any `http(s)` redirect URI on `localhost`,
   * `*.localhost` or `127.0.0.1` is accepted too, so tests can pick provider ids freely.
   */
  strictRedirectUris?: boolean;
  /** The claims of an account; defaults to {@link defaultClaims}. */
  claims?: (accountId: string) => Record<string, unknown>;
  /** Lifetime of ID tokens and access tokens, in seconds (default 300). */
  tokenTtl?: number;
}

export interface OidcServer {
  /** `http://127.0.0.1:<port>`; discovery is at `${issuer}/.well-known/openid-configuration`. */
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  userinfoEndpoint: string;
  jwksUri: string;
  clients: Record<OidcClientName, OidcClient>;
  /** The next request to the token (or userinfo) endpoint answers HTTP 500. Calls add up. */
  failNext(kind: OidcFailure): void;
  /**
   * Signs `payload` as-is (no claims added) with the provider's own signing key, so it verifies
   * against the provider's JWKS: for forging ID tokens with a wrong `iss`, `aud`, `nonce` or `exp`.
   */
  signJwt(payload: JWTPayload): Promise<string>;
  /** Stops the server and drops every open connection (the provider is then "down"). */
  close(): Promise<void>;
}

/** The default account claims: `user-1` → `user-1@example.com`, `User user-1`. */
export function defaultClaims(accountId: string): Record<string, unknown> {
  return {
    email: `${accountId}@example.com`,
    email_verified: true,
    name: `User ${accountId}`,
    picture: `https://img.example/${encodeURIComponent(accountId)}.png`,
  };
}

/** The account that signs in when the authorization request has no `login_hint`. */
export const DEFAULT_ACCOUNT = "user-1";

const DEFAULT_PROVIDER_IDS = [
  "oidc",
  "oauth",
  "basic",
  "post",
  "public",
  "formpost",
  "idp",
  "idp2",
];
const DEFAULT_REDIRECT_URIS = [
  ...DEFAULT_PROVIDER_IDS.map((id) => `http://localhost:3000/auth/callback/${id}`),
  "http://proxy.localhost:4000/auth/callback/oidc",
];
const SCOPES = new Set(["openid", "profile", "email"]);
const ROUTES = { authorization: "/auth", token: "/token", userinfo: "/me", jwks: "/jwks" };
const INTERACTION_PATH = "/interaction/";

const CLIENTS: Record<OidcClientName, OidcClient> = {
  basic: {
    clientId: "basic",
    clientSecret: "basic-secret-0123456789abcdef",
    tokenEndpointAuthMethod: "client_secret_basic",
  },
  post: {
    clientId: "post",
    clientSecret: "post-secret-0123456789abcdef",
    tokenEndpointAuthMethod: "client_secret_post",
  },
  public: { clientId: "public", tokenEndpointAuthMethod: "none" },
  formpost: {
    clientId: "formpost",
    clientSecret: "formpost-secret-0123456789abcdef",
    tokenEndpointAuthMethod: "client_secret_basic",
  },
};

/**
 * Starts `oidc-provider` on a free loopback port.
 *
 * @example
 * const op = await startOidcProvider();
 * const { redirect } = await authorize(`${op.authorizationEndpoint}?client_id=basic&...`);
 * await op.close();
 */
export async function startOidcProvider(options: OidcServerOptions = {}): Promise<OidcServer> {
  let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
  const server = createServer((req, res) => handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const kid = randomBytes(8).toString("hex");
  const jwk = { ...(await exportJWK(privateKey)), kid, alg: "RS256", use: "sig" };

  const redirectUris = [...DEFAULT_REDIRECT_URIS, ...(options.redirectUris ?? [])];
  const claimsOf = options.claims ?? defaultClaims;
  const ttl = options.tokenTtl ?? 300;

  const configuration: Configuration = {
    adapter: memoryAdapter(),
    clients: Object.values(CLIENTS).map((client) => clientMetadata(client, redirectUris)),
    jwks: { keys: [jwk] },
    cookies: {
      keys: [randomBytes(32).toString("base64url")],
      long: { httpOnly: true, sameSite: "lax" },
      short: { httpOnly: true, sameSite: "lax" },
    },
    claims: {
      openid: ["sub"],
      profile: ["name", "picture"],
      email: ["email", "email_verified"],
    },
    scopes: [...SCOPES],
    // Put the scope-granted claims into the ID token as well as userinfo.
    conformIdTokenClaims: false,
    clockTolerance: 5,
    features: { devInteractions: { enabled: false } },
    // oidc-provider 8 requires PKCE of every client by default; only the public client must use it
    // here, so the confidential clients can test state-only and nonce-only flows.
    pkce: { methods: ["S256"], required: (_ctx, client) => client.clientAuthMethod === "none" },
    routes: ROUTES,
    ttl: {
      AccessToken: ttl,
      AuthorizationCode: 60,
      IdToken: ttl,
      Interaction: 300,
      Session: 600,
      Grant: 600,
    },
    interactions: { url: (_ctx, interaction) => `${INTERACTION_PATH}${interaction.uid}` },
    findAccount: (_ctx, sub) => ({
      accountId: sub,
      claims: () => ({ ...claimsOf(sub), sub }),
    }),
    loadExistingGrant: grantEverythingRequested,
    renderError: (ctx, out) => {
      ctx.type = "json";
      ctx.body = out;
    },
  };

  const provider = new Provider(issuer, configuration);
  if (!options.strictRedirectUris) {
    const registered = provider.Client.prototype.redirectUriAllowed;
    provider.Client.prototype.redirectUriAllowed = function (
      this: InstanceType<typeof provider.Client>,
      uri: string,
    ) {
      return registered.call(this, uri) || isLoopbackUri(uri);
    };
  }
  const providerCallback = provider.callback();
  const failures = new Map<OidcFailure, number>();

  handle = (req, res) => {
    const path = new URL(req.url ?? "/", issuer).pathname;
    const failure: OidcFailure | undefined =
      path === ROUTES.token ? "token500" : path === ROUTES.userinfo ? "userinfo500" : undefined;
    const pending = failure ? (failures.get(failure) ?? 0) : 0;
    if (failure && pending > 0) {
      failures.set(failure, pending - 1);
      req.resume();
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "server_error", error_description: "injected failure" }));
      return;
    }
    if (path.startsWith(INTERACTION_PATH)) {
      void finishInteraction(provider, req, res);
      return;
    }
    providerCallback(req, res);
  };

  return {
    issuer,
    authorizationEndpoint: issuer + ROUTES.authorization,
    tokenEndpoint: issuer + ROUTES.token,
    userinfoEndpoint: issuer + ROUTES.userinfo,
    jwksUri: issuer + ROUTES.jwks,
    clients: CLIENTS,
    failNext(kind) {
      failures.set(kind, (failures.get(kind) ?? 0) + 1);
    },
    signJwt: (payload) =>
      new SignJWT(payload).setProtectedHeader({ alg: "RS256", kid, typ: "JWT" }).sign(privateKey),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function clientMetadata(client: OidcClient, redirectUris: string[]): ClientMetadata {
  return {
    client_id: client.clientId,
    ...(client.clientSecret ? { client_secret: client.clientSecret } : {}),
    token_endpoint_auth_method: client.tokenEndpointAuthMethod,
    grant_types: ["authorization_code"],
    response_types: ["code"],
    redirect_uris: redirectUris,
    ...(client.clientId === "formpost" ? { response_modes: ["form_post"] } : {}),
  };
}

function isLoopbackUri(uri: string): boolean {
  if (!URL.canParse(uri)) return false;
  const { protocol, hostname } = new URL(uri);
  return (
    (protocol === "http:" || protocol === "https:") &&
    (hostname === "localhost" || hostname.endsWith(".localhost") || hostname === "127.0.0.1")
  );
}

/** Consent is implied: every request gets a fresh grant for exactly what it asks for. */
async function grantEverythingRequested(ctx: KoaContextWithOIDC) {
  const { account, client, params } = ctx.oidc;
  if (!account || !client) return undefined;
  const grant = new ctx.oidc.provider.Grant({
    accountId: account.accountId,
    clientId: client.clientId,
  });
  const requested = typeof params?.["scope"] === "string" ? params["scope"].split(" ") : [];
  grant.addOIDCScope(requested.filter((scope) => SCOPES.has(scope)).join(" "));
  grant.addOIDCClaims([...ctx.oidc.requestParamClaims]);
  await grant.save();
  return grant;
}

/** The "login page": signs in the `login_hint` account (or `user-1`) without any user input. */
async function finishInteraction(provider: Provider, req: IncomingMessage, res: ServerResponse) {
  try {
    const { params, prompt, grantId, session } = await provider.interactionDetails(req, res);
    if (prompt.name === "login") {
      const hint = params["login_hint"];
      const accountId = typeof hint === "string" && hint !== "" ? hint : DEFAULT_ACCOUNT;
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId } },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    // An explicit prompt=consent: grant what was asked for.
    const grant = grantId
      ? await provider.Grant.find(grantId)
      : new provider.Grant({
          accountId: session?.accountId,
          clientId: String(params["client_id"]),
        });
    if (!grant) throw new Error("grant not found");
    const scope = typeof params["scope"] === "string" ? params["scope"] : "openid";
    grant.addOIDCScope(
      scope
        .split(" ")
        .filter((s) => SCOPES.has(s))
        .join(" "),
    );
    await provider.interactionFinished(
      req,
      res,
      { consent: { grantId: await grant.save() } },
      { mergeWithLastSubmission: true },
    );
  } catch (error) {
    res.writeHead(400, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: "interaction_failed", error_description: String(error) }));
  }
}

/** A per-provider in-memory store (the built-in one is shared by all instances and logs a warning). */
function memoryAdapter(): (model: string) => Adapter {
  const store = new Map<string, { payload: AdapterPayload; expiresAt: number }>();
  const byGrant = new Map<string, Set<string>>();
  const index = new Map<string, string>();
  const now = () => Math.floor(Date.now() / 1000);
  const read = (key: string | undefined) => {
    const entry = key === undefined ? undefined : store.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now()) {
      store.delete(key!);
      return undefined;
    }
    return entry.payload;
  };

  return (model) => {
    const key = (id: string) => `${model}:${id}`;
    return {
      async upsert(id, payload, expiresIn) {
        const expiresAt = expiresIn ? now() + expiresIn : Number.POSITIVE_INFINITY;
        store.set(key(id), { payload: { ...payload }, expiresAt });
        if (payload.grantId) {
          const keys = byGrant.get(payload.grantId) ?? new Set();
          byGrant.set(payload.grantId, keys.add(key(id)));
        }
        if (model === "Session" && payload.uid) index.set(`uid:${payload.uid}`, key(id));
        if (payload.userCode) index.set(`userCode:${payload.userCode}`, key(id));
      },
      find: async (id) => read(key(id)),
      findByUid: async (uid) => read(index.get(`uid:${uid}`)),
      findByUserCode: async (userCode) => read(index.get(`userCode:${userCode}`)),
      async consume(id) {
        const payload = read(key(id));
        if (payload) payload.consumed = now();
      },
      async destroy(id) {
        store.delete(key(id));
      },
      async revokeByGrantId(grantId) {
        for (const k of byGrant.get(grantId) ?? []) store.delete(k);
        byGrant.delete(grantId);
      },
    };
  };
}

/** The outcome of {@link authorize}: where the provider sent the browser back to the client. */
export type AuthorizeResult =
  | { redirect: URL }
  | { formPost: { action: string; fields: Record<string, string> } };

/**
 * Plays the browser: GETs the authorization URL and follows the provider's own redirects (login
 * interaction included) with a private cookie jar, until the provider hands back to the client,
 * either as a redirect off the provider's origin or as a `response_mode=form_post` auto-post page.
 *
 * @example
 * const result = await authorize(authorizationUrl);
 * if (!("redirect" in result)) throw new Error("expected a redirect");
 * result.redirect.searchParams.get("code");
 */
export async function authorize(url: string | URL): Promise<AuthorizeResult> {
  const jar = new Map<string, string>();
  let current = new URL(url);
  const origin = current.origin;
  for (let hop = 0; hop < 10; hop++) {
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
    const response = await fetch(current, {
      redirect: "manual",
      headers: cookie ? { cookie } : {},
    });
    for (const raw of response.headers.getSetCookie()) {
      const [pair = ""] = raw.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === "" || /expires=thu, 01 jan 1970/i.test(raw) || /max-age=0\b/i.test(raw)) {
        jar.delete(name);
      } else {
        jar.set(name, value);
      }
    }
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      const next = new URL(location, current);
      if (next.origin !== origin) return { redirect: next };
      current = next;
      continue;
    }
    const body = await response.text();
    const form = parseAutoPostForm(body);
    if (response.ok && form) return { formPost: form };
    throw new Error(`authorize: unexpected ${response.status} at ${current.pathname}: ${body}`);
  }
  throw new Error("authorize: too many redirects");
}

function parseAutoPostForm(html: string) {
  const action = /<form method="post" action="([^"]*)"/.exec(html)?.[1];
  if (action === undefined) return undefined;
  const fields: Record<string, string> = {};
  for (const [, name = "", value = ""] of html.matchAll(
    /<input type="hidden" name="([^"]*)" value="([^"]*)"\s*\/?>/g,
  )) {
    fields[unescapeHtml(name)] = unescapeHtml(value);
  }
  return { action: unescapeHtml(action), fields };
}

function unescapeHtml(text: string): string {
  return text
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");
}
