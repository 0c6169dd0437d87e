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
