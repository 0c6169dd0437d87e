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
import type { AuthConfig } from "@gatehouse/core/types";
import { Jar, ORIGIN } from "../helpers.js";
import { deliver, postSignIn, type SignInOptions, sessionOf } from "./oauth-flow.js";
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
