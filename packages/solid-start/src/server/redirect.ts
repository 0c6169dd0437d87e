/**
 * The redirect answer of the protection helpers.
 */

/**
 * A `302` response to `location`: what `redirect()` of `@solidjs/router` builds, and what the
 * router and SolidStart follow when a query or server function throws or returns it. Built here
 * so the server entry does not load the router's browser build.
 */
export function redirectResponse(location: string, headers?: Headers): Response {
  const out = new Headers(headers);
  out.set("Location", location);
  return new Response(null, { status: 302, headers: out });
}
