/**
 * How a route of the handler is declared: once, in its own file under this folder, and listed in
 * ./index.ts. The request parser (methods, provider segment), the handler (the lazy loader) and the
 * `AuthAction` type all read that one list.
 */
import type { Context } from "../context.js";
import type { ResponseInternal } from "../types/config.js";

/** What a route runs: the action, with the parsed request and the resolved configuration. */
export type Action = (ctx: Context) => ResponseInternal | Promise<ResponseInternal>;

/**
 * Which requests prove they come from the site's own pages with the double-submit CSRF token:
 * - `"post"`: every POST (the action refuses one without a valid token, `MissingCSRF`);
 * - `"method"`: the sign-in method decides (a credentials or email form does; an OAuth form_post
 *   from the provider and a WebAuthn response bound to its challenge cookie do not);
 * - `"none"`: the route changes nothing (GET only), or its proof is another one (a back-channel
 *   logout token signed by the provider).
 */
export type CsrfRule = "post" | "method" | "none";

export interface RouteDeclaration<Name extends string = string> {
  /** The path under the base path: one segment, or two joined by `/` (`sessions/revoke`). */
  name: Name;
  /** The methods it answers (anything else is a 405 with `Allow`). */
  methods: readonly ("GET" | "POST")[];
  /**
   * Whether the path carries a provider id after the name: never, maybe, or always. A route that
   * takes one only to start a flow (`signin/<id>`) answers POST alone with it: `providerMethods`.
   */
  provider: "no" | "optional" | "required";
  /** The methods allowed when a provider id is present, where they differ from `methods`. */
  providerMethods?: readonly ("GET" | "POST")[];
  /**
   * The provider types the path may name (a passkey route, a password route); another type is
   * the client's mistake, refused before the action loads: 400 `InvalidProvider`.
   */
  providerTypes?: readonly string[];
  csrf: CsrfRule;
  /**
   * `true`: a JSON client (a JSON body, or `Accept: application/json` without `text/html`) gets
   * an error the action throws as JSON, `{ error, message }` (400 for the client's mistakes, 500
   * otherwise), instead of a redirect to the error page: routes that `fetch` calls (a feature's
   * JSON API, as the password routes are) answer every refusal the same way.
   */
  jsonErrors?: boolean;
  /**
   * Only scripts call this route (a ceremony's options, never a form or a navigation): over a
   * rate limit it answers `429` JSON with `Retry-After` whatever the request's `Accept`, since no
   * page would show a redirect. Its other errors answer as the protocol says.
   */
  calledByScripts?: boolean;
  /** The action, imported by the route's first request (or at load for the session routes). */
  load: () => Action | Promise<Action>;
}

/** Declares a route; the name's literal type is kept, so the list of names is a type. */
export function defineRoute<const Name extends string>(
  route: RouteDeclaration<Name>,
): RouteDeclaration<Name> {
  return route;
}
