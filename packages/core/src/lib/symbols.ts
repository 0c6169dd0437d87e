/**
 * Markers for options that must never arrive from JSON or the environment by accident.
 * A framework integration sets them in code.
 */

/** Set `config.raw = raw` to get the internal response object instead of a `Response`. */
export const raw: unique symbol = Symbol("gatehouse.raw");

/** Set `config.skipCSRFCheck = skipCSRFCheck` when the framework already protects its forms. */
export const skipCSRFCheck: unique symbol = Symbol("gatehouse.skipCSRFCheck");

/** Set `provider[customFetch]` to a `fetch` replacement for that provider's HTTP calls. */
export const customFetch: unique symbol = Symbol("gatehouse.customFetch");

/**
 * Set `hook[clientAddressFallback] = true` on a `clientAddress` hook that a framework integration
 * installs when the app configured none (a socket address it trusts only when public). When such a
 * hook answers no address for a request that carries `X-Forwarded-For`, Gatehouse says once per
 * configuration that `trustedProxies` is missing, as it does when no hook is set at all. An app's
 * own hook is never second-guessed.
 */
export const clientAddressFallback: unique symbol = Symbol("gatehouse.clientAddressFallback");
