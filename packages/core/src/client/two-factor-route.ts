/**
 * What every two-factor client call shares (./two-factor.ts, ./trusted-browsers.ts): its options
 * and the POST to `<basePath>/two-factor/<route>` with the CSRF token.
 */
import { basePathOf } from "./base-path.js";
import { refusalOf } from "./errors.js";
import { browserLocation, fetchCsrfToken, postJson } from "./transport.js";

/** Options of every two-factor call. */
export interface TwoFactorRouteOptions {
  /** The auth route's base path for this call. Default: `configureClient`'s, else `/api/auth`. */
  basePath?: string;
}

/**
 * Posts `fields` with the CSRF token to `<basePath>/two-factor/<route>`; resolves with the
 * answer's body, or throws the refusal it carries: an error status with `{ error, message }`, or
 * a redirect to an error page (a sign-in the `signIn` callback refused after the challenge).
 */
export async function postTwoFactor(
  route: string,
  what: string,
  options: TwoFactorRouteOptions,
  fields: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const base = basePathOf(options.basePath);
  const csrfToken = await fetchCsrfToken(base);
  const answer = await postJson(`${base}/two-factor/${route}`, { ...fields, csrfToken });
  const body = answer.body ?? {};
  if (!answer.ok) throw refusalOf(what, answer, body);
  if (typeof body.url === "string") {
    const error = new URL(body.url, browserLocation().href).searchParams.get("error");
    if (error !== null) throw refusalOf(what, answer, body, error);
  }
  return body;
}
