/**
 * Drives OAuth sign-ins through `Auth()` the way a browser would: fetch a CSRF token, POST the
 * sign-in form, follow the provider's redirects, and hand the provider's answer to the callback.
 */
import { createServer } from "node:net";
import OIDC from "@gatehousejs/core/providers/oidc";
import type { AuthConfig, LoggerInstance, OAuthConfig } from "@gatehousejs/core/types";
import { expect, type Mock } from "vitest";
import { type Jar, ORIGIN, send, setCookies } from "../helpers.js";
import { authorize, type OidcServer } from "./oidc-server.js";

export const SESSION_COOKIE = "authjs.session-token";
export const STATE_COOKIE = "authjs.state";
export const PKCE_COOKIE = "authjs.pkce.code_verifier";
export const NONCE_COOKIE = "authjs.nonce";
export const CHECK_COOKIES = [STATE_COOKIE, PKCE_COOKIE, NONCE_COOKIE];

/** Where the sign-in page is, and the error page redirect for `error`. */
export const signInError = (error: string, origin = ORIGIN, basePath = "/auth") =>
  `${origin}${basePath}/signin?error=${error}`;

export interface SignInOptions {
  /** Query parameters of the sign-in POST (forwarded to the provider). */
  query?: Record<string, string>;
  /** Extra form fields of the sign-in POST (`callbackUrl`, say). */
  form?: Record<string, string>;
  origin?: string;
  basePath?: string;
}

/** POST /signin/<id> with a fresh CSRF token; returns the response (a 302 to the provider). */
export async function postSignIn(
  config: AuthConfig,
  jar: Jar,
  providerId: string,
  options: SignInOptions = {},
): Promise<Response> {
  const { origin, basePath = "/auth" } = options;
  const csrf = await send(config, jar, `${basePath}/csrf`, { origin });
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const query = options.query ? `?${new URLSearchParams(options.query)}` : "";
  return send(config, jar, `${basePath}/signin/${providerId}${query}`, {
    form: { csrfToken, ...options.form },
    origin,
  });
}

/** {@link postSignIn}, checked to be a redirect; returns the authorization URL. */
export async function beginSignIn(
  config: AuthConfig,
  jar: Jar,
  providerId: string,
  options: SignInOptions = {},
): Promise<URL> {
  const response = await postSignIn(config, jar, providerId, options);
  expect(response.status).toBe(302);
  return new URL(response.headers.get("location")!);
}

/** The provider's answer, as the request the browser then makes to the client. */
export interface ProviderAnswer {
  url: URL;
  /** Present for `response_mode=form_post`: the auto-posted fields. */
  form?: Record<string, string>;
}

/** Plays the user at the OpenID provider; returns where the provider sends the browser back. */
export async function atProvider(authorizationUrl: URL): Promise<ProviderAnswer> {
  const result = await authorize(authorizationUrl);
  if ("redirect" in result) return { url: result.redirect };
  return { url: new URL(result.formPost.action), form: result.formPost.fields };
}

/** Delivers the provider's answer to `Auth()` (GET, or POST for form_post). */
export function deliver(
  config: AuthConfig,
  jar: Jar,
  answer: ProviderAnswer,
  origin = answer.url.origin,
): Promise<Response> {
  const path = answer.url.pathname + answer.url.search;
  return send(config, jar, path, answer.form ? { form: answer.form, origin } : { origin });
}

/** A whole sign-in: POST /signin, the provider, the callback. Returns the callback's response. */
export async function signInThrough(
  config: AuthConfig,
  jar: Jar,
  providerId: string,
  options: SignInOptions = {},
): Promise<Response> {
  const answer = await atProvider(await beginSignIn(config, jar, providerId, options));
  return deliver(config, jar, answer, options.origin);
}

/** The session as GET /session reports it. */
export async function sessionOf(config: AuthConfig, jar: Jar, basePath = "/auth") {
  const response = await send(config, jar, `${basePath}/session`);
  expect(response.status).toBe(200);
  return (await response.json()) as {
    user?: { name?: string | null; email?: string | null; image?: string | null };
    expires?: string;
  } | null;
}

/** Asserts that a response sets no session cookie (deleting one is fine). */
export function expectNoSessionCookie(response: Response) {
  for (const [name, { value, raw }] of setCookies(response)) {
    if (name.startsWith(SESSION_COOKIE)) {
      expect(value === "" || /Max-Age=0/.test(raw), `${name} must not be set`).toBe(true);
    }
  }
}

/** Asserts that a response clears each named cookie. */
export function expectCleared(response: Response, names: string[]) {
  const cookies = setCookies(response);
  for (const name of names) {
    expect(cookies.get(name)?.raw, `${name} is cleared`).toMatch(/Max-Age=0/);
  }
}

type RecordingLogger = {
  error: Mock<LoggerInstance["error"]>;
  warn?: Mock<LoggerInstance["warn"]>;
};

/**
 * Every logged failure as text: type, message and the whole cause chain's names and messages.
 * Server faults come from `error`, client mistakes from `warn("client-error", error)`.
 */
export function loggedErrors(logger: RecordingLogger): string[] {
  const mistakes = (logger.warn?.mock.calls ?? [])
    .filter(([code]) => code === "client-error")
    .map(([, error]) => [error] as [Error]);
  return [...logger.error.mock.calls, ...mistakes].map(([error]) => {
    const parts: string[] = [];
    let current: unknown = error;
    for (let depth = 0; current instanceof Error && depth < 10; depth++) {
      const type = (current as { type?: unknown }).type;
      parts.push(`${typeof type === "string" ? type : current.name}: ${current.message}`);
      current = current.cause;
    }
    return parts.join(" <- ");
  });
}

/** Asserts exactly one logged error, of `type`, and returns its text. */
export function expectOneError(logger: RecordingLogger, type: string, message?: RegExp) {
  const errors = loggedErrors(logger);
  expect(errors, errors.join("\n")).toHaveLength(1);
  expect(errors[0]).toMatch(new RegExp(`^${type}: `));
  if (message) expect(errors[0]).toMatch(message);
  return errors[0]!;
}

/** A loopback port nothing listens on (connection refused). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Two OIDC providers on one oidc-provider, "idp" (client_secret_basic) and "idp2"
 * (client_secret_post), issuing the same user: for linking tests. `idp2` options are merged in.
 */
export function twoIdps(op: OidcServer, idp2: Partial<OAuthConfig> = {}): OAuthConfig[] {
  return [
    OIDC({
      id: "idp",
      issuer: op.issuer,
      clientId: op.clients.basic.clientId,
      clientSecret: op.clients.basic.clientSecret,
    }),
    OIDC({
      id: "idp2",
      issuer: op.issuer,
      clientId: op.clients.post.clientId,
      clientSecret: op.clients.post.clientSecret,
      client: { token_endpoint_auth_method: "client_secret_post" },
      ...idp2,
    }),
  ];
}
