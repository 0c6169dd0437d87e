/**
 * The kit a framework integration is built on, so that the integration is a thin shell around
 * its framework's events: the configuration (`prefix` as `basePath`, environment defaults), the
 * catch-all auth route with the socket address handed over for the rate limits, the session
 * read in-process with renewed cookies forwarded to the page, the redirects of protected pages,
 * a middleware for protected paths, and the CSRF token and session record a server-rendered page
 * needs. Nothing here imports a framework. `@gatehousejs/solid-start` is built on it.
 * @module
 */
export {
  isLoopbackAddress,
  isPublicAddress,
  peerAddressOf,
} from "./client-address.js";
export {
  DEFAULT_PREFIX,
  type IntegrationConfig,
  normalizePrefix,
  type ResolvedIntegrationConfig,
  resolveIntegrationConfig,
  underPrefix,
} from "./config.js";
export { appendCookies, type ResponseHeadersHolder } from "./cookies.js";
export {
  type AuthMiddlewareEvent,
  type AuthMiddlewareFramework,
  type AuthMiddlewareHandler,
  type AuthMiddlewareOptions,
  createAuthMiddleware,
} from "./middleware.js";
export { isProduction } from "./mode.js";
export {
  assertSignedOutRedirect,
  redirectResponse,
  requestedPage,
  type SignedOutRedirect,
  sameSitePath,
  signInLocation,
} from "./redirect.js";
export {
  type AuthRouteHandler,
  type AuthRouteOptions,
  createAuthRoute,
} from "./route.js";
export {
  type CsrfTokenAnswer,
  getSessionInfo,
  readCsrfToken,
} from "./route-state.js";
export { readSession, type SignInRedirectOptions, signInRedirect } from "./session.js";
