/**
 * `Auth()`: the request handler. Parse, resolve the (cached) configuration, run the action,
 * turn the outcome into a `Response`. Every failure ends in a page, a redirect or a 4xx with a
 * stable error value, and one log line.
 */
import { rememberIncoming } from "./client-address.js";
import { configLogger, normalizeBasePath, type ResolvedConfig, resolveConfig } from "./config.js";
import { Context } from "./context.js";
import {
  AuthError,
  CredentialsSignin,
  EmailSignInError,
  isClientError,
  isClientMistake,
  MissingCSRF,
  RateLimited,
} from "./errors.js";
import { partsOf } from "./feature.js";
import { effectiveUrl, HostMismatch } from "./origin.js";
import { parseRequest, type RequestInternal, RequestRejection, readsJson } from "./request.js";
import { htmlResult, jsonResult, noStore, redirectResult, toResponse } from "./response.js";
import type { Action, RouteDeclaration } from "./routes/define.js";
import { routeNamed } from "./routes/index.js";
import { raw } from "./symbols.js";
import type { AuthConfig, LoggerInstance, ResponseInternal } from "./types/config.js";

/**
 * An action whose module is imported by its first request and called directly after that. Only
 * the session check is loaded with the package: a process that reads sessions (every
 * server-rendered page) never loads the pages, the sign-in flows or the WebAuthn code.
 */
function onFirstUse(load: RouteDeclaration["load"]): Action {
  let action: Action | undefined;
  return (ctx) => {
    if (action) return action(ctx);
    return Promise.resolve(load()).then((loaded) => {
      action = loaded;
      return loaded(ctx);
    });
  };
}

const actions = new WeakMap<RouteDeclaration, Action>();

/** The action of a route, loaded by its first request. */
function actionOf(route: RouteDeclaration): Action {
  let action = actions.get(route);
  if (!action) {
    action = onFirstUse(route.load);
    actions.set(route, action);
  }
  return action;
}

const configurationMessage =
  "There was a problem with the server configuration. Check the server logs for more information.";

function rejection(r: RequestRejection): ResponseInternal {
  const result = jsonResult({ error: r.error, message: r.message }, r.status);
  if (r.allow) result.headers = { ...result.headers, Allow: r.allow };
  return result;
}

/** A client's mistake: one `warn` line under its own type, never an `error`. */
function logMistake(logger: LoggerInstance, type: string, message: string): void {
  const error = new Error(message);
  error.name = type;
  logger.warn("client-error", error);
}

/** Logs a failed action: client mistakes at `warn`, server faults at `error`. */
function logFailure(logger: LoggerInstance, error: AuthError): void {
  if (isClientMistake(error)) logger.warn("client-error", error);
  else logger.error(error);
}

/** The page actions answer a broken configuration with the error page; the rest with JSON. */
async function configurationError(
  req: RequestInternal,
  config: AuthConfig,
  origin: string,
): Promise<ResponseInternal> {
  const isPage = ["signin", "signout", "error", "verify-request"].includes(req.action);
  if (!isPage || req.method !== "GET") return jsonResult({ message: configurationMessage }, 500);
  if (typeof config.pages?.error === "string" && URL.canParse(config.pages.error, origin)) {
    const target = new URL(config.pages.error, origin);
    target.searchParams.set("error", "Configuration");
    // Guard against a custom error page that itself needs a working configuration.
    if (!req.query.callbackUrl?.startsWith(config.pages.error)) return redirectResult(target.href);
  }
  const basePath = normalizeBasePath(config.basePath);
  const { renderErrorPage } = await import("./pages/index.js");
  const { status, html } = renderErrorPage({
    error: "Configuration",
    siteUrl: origin,
    signInUrl: `${origin}${basePath}/signin`,
    theme: { colorScheme: "auto", logo: "", brandColor: "", buttonText: "", ...config.theme },
  });
  return htmlResult(html, status);
}

/** Where a failed action sends the user, with a client-safe `?error=`. */
async function errorRedirect(ctx: Context, error: AuthError): Promise<ResponseInternal> {
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
  // The sign-in page says when to try again.
  if (error instanceof RateLimited) params.code = String(error.retryAfter);
  const { pageUrl, signOutRetryUrl } = await import("./actions/pages.js");
  // A refused sign-out is not a sign-in: its own page says its form expired.
  const target =
    error instanceof MissingCSRF && ctx.req.action === "signout"
      ? await signOutRetryUrl(ctx)
      : pageUrl(ctx, page, params);
  const result = redirectResult(target);
  // Deletions still apply: a consumed one-time cookie must not survive a failed sign-in.
  result.cookies = ctx.setCookies.filter((c) => c.options.maxAge === 0);
  return result;
}

/**
 * Over a rate limit: `429` with `Retry-After` for `fetch` callers (`X-Auth-Return-Redirect`), JSON
 * clients (`Accept: application/json` without HTML) and routes only scripts call (the WebAuthn
 * options: `calledByScripts`); a browser form goes back to the sign-in page with
 * `error=RateLimited` and the wait in `code`. Raw mode answers the same: the limit is part of the
 * protocol, not a failure for the framework to handle.
 */
async function rateLimitedAnswer(
  ctx: Context,
  error: RateLimited,
  returnRedirect: boolean,
): Promise<ResponseInternal> {
  const retryAfter = String(error.retryAfter);
  const accept = ctx.req.headers.get("accept") ?? "";
  const wantsJson = accept.includes("application/json") && !accept.includes("text/html");
  const route = routeNamed(ctx.req.action);
  const jsonRoute = route?.jsonErrors === true && readsJson(ctx.req);
  if (returnRedirect || wantsJson || jsonRoute || route?.calledByScripts === true) {
    const message = `Too many attempts. Try again in ${retryAfter} seconds.`;
    const body = { error: "RateLimited", message, retryAfter: error.retryAfter };
    return jsonResult(body, 429, { ...noStore, "Retry-After": retryAfter });
  }
  const result = await errorRedirect(ctx, error);
  result.headers = { ...result.headers, "Retry-After": retryAfter };
  return result;
}

/**
 * The provider named in the path, checked before the action runs: an unknown id (or one that
 * cannot be an id) is the client's mistake, as is a route for another provider type (a route's
 * `providerTypes`: the passkey options of a password provider).
 * A sign-in POST for an unknown provider goes back to the sign-in page, as with Auth.js.
 */
function checkProviderSegment(req: RequestInternal, config: ResolvedConfig): void {
  const id = req.providerId;
  if (id === undefined || req.action === "signin") return;
  const provider = config.providerById.get(id);
  if (!provider) {
    throw new RequestRejection(400, "InvalidProvider", "No provider has the id given in the path");
  }
  const types = routeNamed(req.action)?.providerTypes;
  if (types && !types.includes(provider.type)) {
    throw new RequestRejection(400, "InvalidProvider", `This provider has no ${req.action} action`);
  }
}

/**
 * A provider that could not be configured breaks only itself: starting a sign-in with it, or
 * coming back to its callback, answers the `Configuration` error page (or `pages.error`). Its
 * error was logged once when the configuration was read, so nothing is logged here; a session
 * check, the provider list and every other provider go on working.
 */
async function unusableProviderAnswer(ctx: Context): Promise<ResponseInternal | undefined> {
  const { req, config } = ctx;
  if (req.providerId === undefined || !config.unusableProviders.has(req.providerId)) return;
  // GET /signin/<id> shows the sign-in page, which must keep working.
  if (req.action === "signin" && req.method !== "POST") return;
  if (req.action !== "signin" && req.action !== "callback") {
    return jsonResult({ message: configurationMessage }, 500);
  }
  const { pageUrl } = await import("./actions/pages.js");
  const page = config.pages.error ?? `${config.basePath}/error`;
  return redirectResult(pageUrl(ctx, page, { error: "Configuration" }));
}

async function run(
  request: Request,
  config: AuthConfig,
  returnRedirect: boolean,
): Promise<{ result: ResponseInternal; raw: boolean }> {
  let resolved: ResolvedConfig | undefined;
  let configError: unknown;
  try {
    const candidate = resolveConfig(config);
    // What the features add, worked out now: a feature's malformed option is a configuration error.
    partsOf(candidate);
    resolved = candidate;
  } catch (error) {
    configError = error;
  }
  const logger = resolved?.logger ?? configLogger(config);
  const isRaw = resolved?.raw ?? config.raw === raw;

  let req: RequestInternal;
  try {
    const basePath = resolved?.basePath ?? normalizeBasePath(config.basePath);
    req = await parseRequest(request, basePath);
    // The clientAddress hook gets the Request handed to Auth(); nothing to keep without a hook.
    if (resolved?.clientAddress) rememberIncoming(req, request);
    if (resolved) {
      req.url = effectiveUrl(req.url, req.headers, resolved.url, resolved.trustHost);
      checkProviderSegment(req, resolved);
    }
  } catch (error) {
    let r: RequestRejection;
    if (error instanceof RequestRejection) r = error;
    else if (error instanceof HostMismatch)
      r = new RequestRejection(400, "UntrustedHost", error.message);
    // A body that cannot be read (an aborted upload, say) is the client's problem too.
    else r = new RequestRejection(400, "BadRequest", "The request could not be read");
    if (r.error === "UnknownAction" && resolved && resolved.basePath !== "") {
      r = outsideBasePath(r, request, resolved.basePath);
    }
    logMistake(logger, r.error, r.message);
    return { result: rejection(r), raw: isRaw };
  }

  if (!resolved) {
    logger.error(configError as Error);
    return { result: await configurationError(req, config, req.url.origin), raw: isRaw };
  }

  const ctx = new Context(req, resolved);
  const unusable = await unusableProviderAnswer(ctx);
  if (unusable) return { result: unusable, raw: resolved.raw };
  try {
    const result = await actionOf(routeNamed(req.action)!)(ctx);
    if (ctx.setCookies.length > 0) result.cookies = [...ctx.setCookies, ...(result.cookies ?? [])];
    return { result, raw: resolved.raw };
  } catch (caught) {
    // Imported here: only the callback actions throw it, and a session check never loads them.
    const { MethodNotAllowed } = await import("./actions/method.js");
    if (caught instanceof MethodNotAllowed) {
      const r = new RequestRejection(405, "MethodNotAllowed", caught.message, caught.allow);
      logMistake(logger, r.error, r.message);
      return { result: rejection(r), raw: resolved.raw };
    }
    const error =
      caught instanceof AuthError
        ? caught
        : new AuthError("An unexpected error ended the request", { cause: caught });
    logFailure(logger, error);
    if (error instanceof RateLimited) {
      return { result: await rateLimitedAnswer(ctx, error, returnRedirect), raw: resolved.raw };
    }
    if (resolved.raw && caught instanceof AuthError && !returnRedirect) throw caught;
    if (req.action === "session" && req.method === "POST") {
      return { result: jsonResult(null, 400), raw: resolved.raw };
    }
    if (routeNamed(req.action)?.jsonErrors && readsJson(req)) {
      return { result: await errorJson(error), raw: resolved.raw };
    }
    return { result: await errorRedirect(ctx, error), raw: resolved.raw };
  }
}

/**
 * A failed action as JSON (a route with `jsonErrors`): the error's type where the client may see
 * it (one `?error=` may carry, or the client's own mistake), else `Configuration`, with the words
 * the sign-in page has for it; never the error's own message, which is for the log.
 */
async function errorJson(error: AuthError): Promise<ResponseInternal> {
  const { type } = error;
  const mistake = isClientMistake(error);
  const shown = mistake || isClientError(error) ? type : "Configuration";
  const { signInErrorMessage } = await import("./pages/sign-in-errors.js");
  const message =
    shown === "Configuration"
      ? configurationMessage
      : shown === "Verification"
        ? "The link is no longer valid: it was used already, replaced by a newer one, or expired."
        : signInErrorMessage(shown);
  const status = mistake ? 400 : type === "AccessDenied" ? 403 : 500;
  return jsonResult({ error: shown, message }, status, noStore);
}

/** An unknown path whose prefix is not `basePath` says which `basePath` is configured. */
function outsideBasePath(r: RequestRejection, request: Request, basePath: string) {
  const path = URL.canParse(request.url) ? new URL(request.url).pathname : "";
  if (path === basePath || path.startsWith(`${basePath}/`)) return r;
  return new RequestRejection(
    400,
    "UnknownAction",
    `The path is outside the configured basePath "${basePath}": mount the handler there or set basePath`,
  );
}

/** The last resort when even the answer could not be built: a 400 with no body to go wrong. */
function unbuildable(logger: LoggerInstance, cause: unknown): Response {
  logger.error(new AuthError("The response could not be built", { cause }));
  return new Response(
    JSON.stringify({ error: "BadRequest", message: "The request could not be answered" }),
    {
      status: 400,
      headers: { "Content-Type": "application/json", "Cache-Control": "private, no-store" },
    },
  );
}

/**
 * Handles one request to the auth routes under `basePath` and answers it.
 *
 * With `config.raw` set to the `raw` symbol it returns the internal response (status, headers,
 * body, redirect, cookies) instead, for framework integrations.
 *
 * @example
 * ```ts
 * import { Auth } from "@gatehousejs/core";
 * import Credentials from "@gatehousejs/core/providers/credentials";
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
  let outcome: { result: ResponseInternal; raw: boolean };
  try {
    outcome = await run(request, config, returnRedirect);
  } catch (cause) {
    // Raw mode hands action errors to the framework integration on purpose.
    if (config.raw === raw && cause instanceof AuthError) throw cause;
    const response = unbuildable(configLogger(config), cause);
    return config.raw === raw ? { status: 400, body: { error: "BadRequest" } } : response;
  }
  if (outcome.raw) return outcome.result;
  try {
    return toResponse(outcome.result, returnRedirect);
  } catch (cause) {
    return unbuildable(configLogger(config), cause);
  }
}
