/**
 * Drives a sign-in through `Auth()` against a {@link Imitation} the way a browser would:
 *
 * ```ts
 * const result = await signIn(config, "github", gh);                 // the whole round trip
 * expect(result.response.headers.get("location")).toBe(ORIGIN);
 * expect(result.session?.user?.email).toBe("octo@example.com");
 * await signIn(config, "github", gh, { decision: { deny: true } });   // the user says no
 * ```
 *
 * Steps: POST `<basePath>/signin/<id>` with a CSRF token (see `postSignIn`), take the redirect's
 * `Location` (it must point at the provider's REAL authorization URL), let the imitation play the
 * user there (`imitation.authorize`), deliver its answer to `<basePath>/callback/<id>` (a GET, or a
 * POST for `response_mode=form_post`), then read `GET <basePath>/session`.
 *
 * When Gatehouse does not redirect to the provider (a misconfiguration, a discovery failure), the
 * sign-in response itself is returned with `answer` undefined, so the test can assert on it.
 */
import type { AuthConfig, Provider } from "@gatehousejs/core/types";
import { expect } from "vitest";
import { Jar, ORIGIN, recordingLogger, SECRET } from "../helpers.js";
import {
  deliver,
  expectNoSessionCookie,
  loggedErrors,
  postSignIn,
  SESSION_COOKIE,
  type SignInOptions,
  sessionOf,
  signInError,
} from "./oauth-flow.js";
import type { AuthorizeDecision, Imitation, ProviderAnswer } from "./provider-imitation.js";

export interface ProviderSignInOptions<U> extends SignInOptions {
  /** Cookies carried across the steps (default: a fresh jar). */
  jar?: Jar;
  /** What the user does at the provider. */
  decision?: AuthorizeDecision<U>;
  /** Changes the provider's answer before it is delivered (a forged state, say). */
  tamper?: (answer: ProviderAnswer) => ProviderAnswer;
}

export interface ProviderSignInResult {
  /** The sign-in POST's answer (a 302 to the provider when all is well). */
  signin: Response;
  /** Where Gatehouse sent the browser: the provider's authorization URL with its parameters. */
  authorization: URL | undefined;
  /** What the provider sent back (undefined when Gatehouse never redirected to it). */
  answer: ProviderAnswer | undefined;
  /** The callback's response (or, without a redirect, the sign-in response). */
  response: Response;
  /** GET /session afterwards. */
  session: Awaited<ReturnType<typeof sessionOf>>;
  jar: Jar;
}

/** One sign-in round trip; see the module comment. */
export async function signIn<U>(
  config: AuthConfig,
  providerId: string,
  imitation: Imitation<U>,
  options: ProviderSignInOptions<U> = {},
): Promise<ProviderSignInResult> {
  const { jar = new Jar(), basePath = "/auth", decision, tamper } = options;
  const signin = await postSignIn(config, jar, providerId, options);
  const location = signin.headers.get("location");
  const authorization = signin.status === 302 && location ? new URL(location) : undefined;
  // A redirect to the site itself is Gatehouse's own page (an error), not the provider.
  const site = new URL(options.origin ?? ORIGIN).origin;
  const toProvider = authorization?.origin !== site ? authorization : undefined;
  if (!toProvider) {
    return {
      signin,
      authorization,
      answer: undefined,
      response: signin,
      session: await sessionOf(config, jar, basePath),
      jar,
    };
  }
  let answer = await imitation.authorize(toProvider, decision);
  if (tamper) answer = tamper(answer);
  const response = await deliver(config, jar, answer, options.origin);
  return {
    signin,
    authorization,
    answer,
    response,
    session: await sessionOf(config, jar, basePath),
    jar,
  };
}

/** A configuration with one provider and a recording logger (JWT sessions unless overridden). */
export function providerConfig(provider: Provider, overrides: Partial<AuthConfig> = {}) {
  const logger = recordingLogger();
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger,
    providers: [provider],
    ...overrides,
  };
  return { config, logger };
}

/**
 * A sign-in the provider made fail: a redirect to the sign-in page with `error` (default
 * `OAuthCallbackError`), no session cookie, no session, and exactly one log line, of that type,
 * containing none of `secrets` (client secret, tokens). Returns the log line.
 */
export function expectFailedSignIn(
  result: ProviderSignInResult,
  logger: ReturnType<typeof recordingLogger>,
  { error = "OAuthCallbackError", secrets = [] as string[] } = {},
): string {
  expect(result.response.status).toBe(302);
  expect(result.response.headers.get("location")).toBe(signInError(error));
  expectNoSessionCookie(result.response);
  expect(result.jar.cookies.has(SESSION_COOKIE)).toBe(false);
  expect(result.session).toBeNull();
  const lines = loggedErrors(logger);
  expect(lines, lines.join("\n")).toHaveLength(1);
  expect(lines[0]).toMatch(new RegExp(`^${error}: `));
  for (const secret of secrets) expect(lines[0]).not.toContain(secret);
  // Access tokens the imitation issues look like `at-<random>`.
  expect(lines[0]).not.toMatch(/\bat-[\w-]{10,}/);
  return lines[0]!;
}
