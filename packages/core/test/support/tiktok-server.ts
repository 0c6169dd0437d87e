/**
 * A server on 127.0.0.1 that behaves like TikTok's Login Kit and user info API and enforces what
 * they require: `client_key` in the authorize URL and in the token body, a form-encoded token
 * request, the `fields` parameter and a Bearer token on user info. Answers in TikTok's shapes:
 * `{ error, error_description, log_id }` from OAuth endpoints, `{ data, error: { code, message,
 * log_id } }` from the API.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** `data.user` of TikTok's user info response; a field appears only when requested in `fields`. */
export interface TikTokUser {
  open_id: string;
  union_id?: string;
  username?: string;
  display_name?: string;
  avatar_url?: string;
  avatar_url_100?: string;
  avatar_large_url?: string;
  bio_description?: string;
  profile_deep_link?: string;
  is_verified?: boolean;
  follower_count?: number;
  following_count?: number;
  likes_count?: number;
  video_count?: number;
  /** Not offered by TikTok; settable to test the profile mapping. */
  email?: string;
}

export const DEFAULT_TIKTOK_USER: Readonly<TikTokUser> = {
  open_id: "tt-open-1",
  union_id: "tt-union-1",
  username: "ttuser",
  display_name: "TT User",
  avatar_url: "https://p16.example/a.jpg",
  avatar_url_100: "https://p16.example/a-100.jpg",
  avatar_large_url: "https://p16.example/a-large.jpg",
  bio_description: "Dancing in tests",
  profile_deep_link: "https://vm.tiktok.example/ttuser",
  is_verified: false,
  follower_count: 12,
  following_count: 34,
  likes_count: 56,
  video_count: 7,
};

/** One request as the server received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  /** Lower-cased names. */
  headers: Record<string, string>;
  /** The raw body ("" when none); `new URLSearchParams(body)` for form bodies. */
  body: string;
}

export interface TikTokServerOptions {
  clientKey?: string;
  clientSecret?: string;
  /** Changes to {@link DEFAULT_TIKTOK_USER}, as in {@link TikTokServer.setUser}. */
  user?: Partial<TikTokUser>;
}

export interface TikTokProfileError {
  code: string;
  message: string;
  /** HTTP status of the user info answer; TikTok sends some errors with 200 (the default). */
  status?: number;
}

export interface TikTokServer {
  baseUrl: string;
  /** `${baseUrl}/v2/auth/authorize/` (the path is also served without the trailing slash). */
  authorizeUrl: string;
  /** `${baseUrl}/v2/oauth/token/` */
  tokenUrl: string;
  /** `${baseUrl}/v2/user/info/` */
  userinfoUrl: string;
  clientKey: string;
  clientSecret: string;
  /** Every request received, oldest first. */
  requests: RecordedRequest[];
  /** Mints an authorization code as the authorize endpoint would, for the current user. */
  issueCode(params: { redirectUri: string; scope?: string; codeChallenge?: string }): string;
  /**
   * The user of codes issued from now on: `DEFAULT_TIKTOK_USER` with `changes` applied; a key set
   * to `undefined` removes that field.
   */
  setUser(changes: Partial<TikTokUser>): void;
  /** Makes user info answer with this error and empty `data` until reset with `null`. */
  setProfileError(error: TikTokProfileError | null): void;
  close(): Promise<void>;
}

const AUTHORIZE_PATH = "/v2/auth/authorize/";
const TOKEN_PATH = "/v2/oauth/token/";
const USERINFO_PATH = "/v2/user/info/";

/** The scope each user info field needs (TikTok's table; `user.info.basic` is always granted). */
const FIELD_SCOPE: Record<keyof TikTokUser, string> = {
  open_id: "user.info.basic",
  union_id: "user.info.basic",
  avatar_url: "user.info.basic",
  avatar_url_100: "user.info.basic",
  avatar_large_url: "user.info.basic",
  display_name: "user.info.basic",
  email: "user.info.basic",
  username: "user.info.profile",
  bio_description: "user.info.profile",
  profile_deep_link: "user.info.profile",
  is_verified: "user.info.profile",
  follower_count: "user.info.stats",
  following_count: "user.info.stats",
  likes_count: "user.info.stats",
  video_count: "user.info.stats",
};

interface Grant {
  redirectUri: string;
  scopes: string[];
  codeChallenge: string | undefined;
  user: TikTokUser;
}

class OAuthFailure extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
  ) {
    super(description);
  }
}

/**
 * Starts the TikTok-shaped server on a free loopback port.
 *
 * @example
 * const tiktok = await startTikTok();
 * // point the provider at tiktok.authorizeUrl / tokenUrl / userinfoUrl with
 * // clientId: tiktok.clientKey, clientSecret: tiktok.clientSecret
 * await tiktok.close();
 */
export async function startTikTok(options: TikTokServerOptions = {}): Promise<TikTokServer> {
  const clientKey = options.clientKey ?? "tt-client-key";
  const clientSecret = options.clientSecret ?? "tt-client-secret";
  const codes = new Map<string, Grant>();
  const accessTokens = new Map<string, Grant>();
  const refreshTokens = new Map<string, Grant>();
  const requests: RecordedRequest[] = [];
  let user = withChanges(options.user ?? {});
  let profileError: TikTokProfileError | null = null;

  const issueCode = (grant: Omit<Grant, "user">) => {
    const code = random("code");
    codes.set(code, { ...grant, user });
    return code;
  };

  function authorizeEndpoint(query: URLSearchParams, res: ServerResponse) {
    const redirectUri = query.get("redirect_uri");
    const scope = query.get("scope");
    const challenge = query.get("code_challenge");
    const problem =
      query.get("client_key") === null
        ? "client_key is required"
        : query.get("client_key") !== clientKey
          ? "client_key is unknown"
          : !scope
            ? "scope is required"
            : query.get("response_type") !== "code"
              ? "response_type must be code"
              : !redirectUri || !URL.canParse(redirectUri)
                ? "redirect_uri is required"
                : challenge !== null && query.get("code_challenge_method") !== "S256"
                  ? "code_challenge_method must be S256"
                  : undefined;
    if (problem) return oauthError(res, new OAuthFailure("invalid_request", problem));
    const target = new URL(redirectUri!);
    const code = issueCode({
      redirectUri: redirectUri!,
      scopes: scopesOf(scope!),
      codeChallenge: challenge ?? undefined,
    });
    target.searchParams.set("code", code);
    target.searchParams.set("scopes", scopesOf(scope!).join(","));
    const state = query.get("state");
    if (state !== null) target.searchParams.set("state", state);
    res.writeHead(302, { location: target.href }).end();
  }

  function tokenEndpoint(req: IncomingMessage, body: string, res: ServerResponse) {
    const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    if (type !== "application/x-www-form-urlencoded") {
      throw new OAuthFailure(
        "invalid_request",
        "Content-Type must be application/x-www-form-urlencoded",
      );
    }
    const form = new URLSearchParams(body);
    const required = (name: string) => {
      const value = form.get(name);
      if (!value) throw new OAuthFailure("invalid_request", `${name} is required`);
      return value;
    };
    if (required("client_key") !== clientKey || required("client_secret") !== clientSecret) {
      throw new OAuthFailure("invalid_client", "Client authentication failed");
    }
    const grantType = required("grant_type");
    let grant: Grant | undefined;
    if (grantType === "authorization_code") {
      const code = required("code");
      grant = codes.get(code);
      codes.delete(code);
      if (!grant) throw new OAuthFailure("invalid_grant", "Authorization code is expired.");
      if (required("redirect_uri") !== grant.redirectUri) {
        throw new OAuthFailure("invalid_grant", "redirect_uri does not match");
      }
      const verifier = form.get("code_verifier");
      if (
        grant.codeChallenge !== undefined &&
        (!verifier || s256(verifier) !== grant.codeChallenge)
      ) {
        throw new OAuthFailure("invalid_grant", "Code verifier or code challenge is invalid.");
      }
    } else if (grantType === "refresh_token") {
      const refreshToken = required("refresh_token");
      grant = refreshTokens.get(refreshToken);
      if (!grant) throw new OAuthFailure("invalid_grant", "Refresh token is invalid or expired.");
    } else {
      throw new OAuthFailure("unsupported_grant_type", "grant_type is not supported");
    }
    const accessToken = random("act");
    const refreshToken = random("rft");
    accessTokens.set(accessToken, grant);
    refreshTokens.set(refreshToken, grant);
    json(res, 200, {
      access_token: accessToken,
      expires_in: 86400,
      open_id: grant.user.open_id,
      refresh_expires_in: 31536000,
      refresh_token: refreshToken,
      scope: grant.scopes.join(","),
      token_type: "Bearer",
    });
  }

  function userinfoEndpoint(req: IncomingMessage, query: URLSearchParams, res: ServerResponse) {
    const apiError = (status: number, code: string, message: string) =>
      json(res, status, { data: {}, error: { code, message, log_id: logId() } });
    const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? "");
    const grant = auth ? accessTokens.get(auth[1]!) : undefined;
    if (!grant) {
      return apiError(401, "access_token_invalid", "The access token is invalid or not found.");
    }
    const fields = query.get("fields")?.split(",").filter(Boolean) ?? [];
    if (fields.length === 0) return apiError(400, "invalid_params", "fields is required");
    const unknown = fields.filter((field) => !Object.hasOwn(FIELD_SCOPE, field));
    if (unknown.length > 0) {
      return apiError(400, "invalid_params", `Invalid fields: ${unknown.join(",")}`);
    }
    const missing = fields.filter(
      (field) => !grant.scopes.includes(FIELD_SCOPE[field as keyof TikTokUser]),
    );
    if (missing.length > 0) {
      return apiError(400, "scope_permission_missed", `Fields need more scopes: ${missing}`);
    }
    if (profileError) {
      return apiError(profileError.status ?? 200, profileError.code, profileError.message);
    }
    const picked: Record<string, unknown> = {};
    for (const field of fields) {
      const value = grant.user[field as keyof TikTokUser];
      if (value !== undefined) picked[field] = value;
    }
    json(res, 200, { data: { user: picked }, error: { code: "ok", message: "", log_id: logId() } });
  }

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://tiktok.invalid");
    const body = await readBody(req);
    requests.push({
      method: req.method ?? "GET",
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: Object.fromEntries(
        Object.entries(req.headers).map(([name, value]) => [
          name,
          Array.isArray(value) ? value.join(", ") : (value ?? ""),
        ]),
      ),
      body,
    });
    try {
      if (
        req.method === "GET" &&
        (url.pathname === AUTHORIZE_PATH || `${url.pathname}/` === AUTHORIZE_PATH)
      ) {
        authorizeEndpoint(url.searchParams, res);
      } else if (req.method === "POST" && url.pathname === TOKEN_PATH) {
        tokenEndpoint(req, body, res);
      } else if (req.method === "GET" && url.pathname === USERINFO_PATH) {
        userinfoEndpoint(req, url.searchParams, res);
      } else {
        json(res, 404, { error: { code: "not_found", message: "Not found", log_id: logId() } });
      }
    } catch (error) {
      if (error instanceof OAuthFailure) oauthError(res, error);
      else json(res, 500, { error: "server_error", error_description: String(error) });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    baseUrl,
    authorizeUrl: baseUrl + AUTHORIZE_PATH,
    tokenUrl: baseUrl + TOKEN_PATH,
    userinfoUrl: baseUrl + USERINFO_PATH,
    clientKey,
    clientSecret,
    requests,
    issueCode: ({ redirectUri, scope = "user.info.profile", codeChallenge }) =>
      issueCode({ redirectUri, scopes: scopesOf(scope), codeChallenge }),
    setUser(changes) {
      user = withChanges(changes);
    },
    setProfileError(error) {
      profileError = error;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function withChanges(changes: Partial<TikTokUser>): TikTokUser {
  const user: Record<string, unknown> = { ...DEFAULT_TIKTOK_USER, ...changes };
  for (const key of Object.keys(user)) if (user[key] === undefined) delete user[key];
  return user as unknown as TikTokUser;
}

/** TikTok separates scopes with commas; spaces are tolerated. `user.info.basic` is implied. */
function scopesOf(scope: string): string[] {
  return [...new Set(["user.info.basic", ...scope.split(/[ ,]+/).filter(Boolean)])];
}

function s256(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

function random(prefix: string): string {
  return `${prefix}.${randomBytes(24).toString("base64url")}`;
}

function logId(): string {
  return randomBytes(17).toString("hex").toUpperCase();
}

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

function oauthError(res: ServerResponse, failure: OAuthFailure) {
  json(res, 400, {
    error: failure.error,
    error_description: failure.description,
    log_id: logId(),
  });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
