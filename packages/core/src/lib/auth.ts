/**
 * `Auth()`: the request handler. Parse, resolve the (cached) configuration, run the action,
 * turn the outcome into a `Response`. Every failure ends in a page, a redirect or a 4xx with a
 * stable error value, and one log line.
 */
import { callback } from "./actions/callback/index.js";
import { csrf } from "./actions/csrf.js";
import { MethodNotAllowed } from "./actions/method.js";
import { errorPage, pageUrl, verifyRequestPage } from "./actions/pages.js";
import { providers } from "./actions/providers.js";
import { session } from "./actions/session.js";
import { signIn } from "./actions/signin.js";
import { signOut } from "./actions/signout.js";
import { configLogger, normalizeBasePath, type ResolvedConfig, resolveConfig } from "./config.js";
import { Context } from "./context.js";
import {
  AuthError,
  CredentialsSignin,
  EmailSignInError,
  isClientError,
  UnknownAction,
} from "./errors.js";
import { renderErrorPage } from "./pages/index.js";
import { parseRequest, type RequestInternal, RequestRejection } from "./request.js";
import { htmlResult, jsonResult, redirectResult, toResponse } from "./response.js";
import { raw } from "./symbols.js";
import type { AuthAction, AuthConfig, ResponseInternal } from "./types/config.js";

const actions: Record<AuthAction, (ctx: Context) => ResponseInternal | Promise<ResponseInternal>> =
  {
    providers,
    csrf,
    session,
    signin: signIn,
    signout: signOut,
    callback,
    "verify-request": verifyRequestPage,
    error: errorPage,
    // Loaded on first use: apps without passkeys never load the WebAuthn code.
    "webauthn-options": async (ctx) =>
      (await import("./actions/webauthn-options.js")).webauthnOptions(ctx),
  };

const configurationMessage =
  "There was a problem with the server configuration. Check the server logs for more information.";

function rejection(r: RequestRejection): ResponseInternal {
  const result = jsonResult({ error: r.error, message: r.message }, r.status);
  if (r.allow) result.headers = { ...result.headers, Allow: r.allow };
  return result;
}

/** The page actions answer a broken configuration with the error page; the rest with JSON. */
function configurationError(
  req: RequestInternal,
  config: AuthConfig,
  origin: string,
): ResponseInternal {
  const isPage = ["signin", "signout", "error", "verify-request"].includes(req.action);
  if (!isPage || req.method !== "GET") return jsonResult({ message: configurationMessage }, 500);
  if (config.pages?.error) {
    const target = new URL(config.pages.error, origin);
    target.searchParams.set("error", "Configuration");
    // Guard against a custom error page that itself needs a working configuration.
    if (!req.query.callbackUrl?.startsWith(config.pages.error)) return redirectResult(target.href);
  }
  const basePath = normalizeBasePath(config.basePath);
  const { status, html } = renderErrorPage({
    error: "Configuration",
    siteUrl: origin,
    signInUrl: `${origin}${basePath}/signin`,
    theme: { colorScheme: "auto", logo: "", brandColor: "", buttonText: "", ...config.theme },
  });
  return htmlResult(html, status);
}

/** Where a failed action sends the user, with a client-safe `?error=`. */
function errorRedirect(ctx: Context, error: AuthError): ResponseInternal {
  let value: string = isClientError(error) ? error.type : "Configuration";
  // The sign-in page knows these failures by their Auth.js names.
  if (value === "EmailSignInError") value = "EmailSignin";
  if (value === "OAuthSignInError") value = "OAuthSignin";
  const { pages, basePath } = ctx.config;
  const page =
    error.kind === "signIn"
      ? (pages.signIn ?? `${basePath}/signin`)
      : (pages.error ?? `${basePath}/error`);
  const params: Record<string, string> = { error: value };
  if (error instanceof CredentialsSignin || error instanceof EmailSignInError)
    params.code = error.code;
  const result = redirectResult(pageUrl(ctx, page, params));
  // Deletions still apply: a consumed one-time cookie must not survive a failed sign-in.
  result.cookies = ctx.setCookies.filter((c) => c.options.maxAge === 0);
  return result;
}

async function run(
  request: Request,
  config: AuthConfig,
  returnRedirect: boolean,
): Promise<{ result: ResponseInternal; raw: boolean }> {
  let resolved: ResolvedConfig | undefined;
  let configError: unknown;
  try {
    resolved = resolveConfig(config);
  } catch (error) {
    configError = error;
  }
  const logger = resolved?.logger ?? configLogger(config);

  let req: RequestInternal;
  try {
    req = await parseRequest(request, resolved?.basePath ?? normalizeBasePath(config.basePath));
  } catch (error) {
    // A body that cannot be read (an aborted upload, say) is the client's problem too.
    const r =
      error instanceof RequestRejection
        ? error
        : new RequestRejection(400, "BadRequest", "The request could not be read");
    logger.error(new UnknownAction(r.message));
    return { result: rejection(r), raw: resolved?.raw ?? config.raw === raw };
  }

  if (!resolved) {
    logger.error(configError as Error);
    return { result: configurationError(req, config, req.url.origin), raw: config.raw === raw };
  }

  const ctx = new Context(req, resolved);
  try {
    const result = await actions[req.action](ctx);
    if (ctx.setCookies.length > 0) result.cookies = [...ctx.setCookies, ...(result.cookies ?? [])];
    return { result, raw: resolved.raw };
  } catch (caught) {
    if (caught instanceof MethodNotAllowed) {
      const r = new RequestRejection(405, "MethodNotAllowed", caught.message, caught.allow);
      logger.error(new UnknownAction(r.message));
      return { result: rejection(r), raw: resolved.raw };
    }
    const error =
      caught instanceof AuthError
        ? caught
        : new AuthError("An unexpected error ended the request", { cause: caught });
    logger.error(error);
    if (resolved.raw && caught instanceof AuthError && !returnRedirect) throw caught;
    if (req.action === "session" && req.method === "POST") {
      return { result: jsonResult(null, 400), raw: resolved.raw };
    }
    return { result: errorRedirect(ctx, error), raw: resolved.raw };
  }
}

/**
 * Handles one request to the auth routes under `basePath` and answers it.
 *
 * With `config.raw` set to the `raw` symbol it returns the internal response (status, headers,
 * body, redirect, cookies) instead, for framework integrations.
 *
 * @example
 * ```ts
 * import { Auth } from "@gatehouse/core";
 * import Credentials from "@gatehouse/core/providers/credentials";
 *
 * const config = { secret: process.env.AUTH_SECRET, trustHost: true, providers: [Credentials({ ... })] };
 * export default { fetch: (request: Request) => Auth(request, config) };
 * ```
 */
export async function Auth(
  request: Request,
  config: AuthConfig & { raw: typeof raw },
): Promise<ResponseInternal>;
export async function Auth(request: Request, config: Omit<AuthConfig, "raw">): Promise<Response>;
export async function Auth(
  request: Request,
  config: AuthConfig,
): Promise<Response | ResponseInternal> {
  const returnRedirect = request.headers.has("X-Auth-Return-Redirect");
  const { result, raw: isRaw } = await run(request, config, returnRedirect);
  return isRaw ? result : toResponse(result, returnRedirect);
}
