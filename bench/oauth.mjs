/**
 * The full OAuth 2 callback, GET /auth/callback/loopback?code=…, for both libraries against the
 * loopback provider (oauth-provider.mjs): the PKCE cookie is checked and cleared, the code is
 * exchanged at the token endpoint, the profile is fetched from the userinfo endpoint, a JWT
 * session cookie is minted and the user is redirected. Same provider configuration for both:
 * plain `type: "oauth"` with explicit endpoints, `checks: ["pkce"]`, client_secret_basic (the
 * default for both with a secret), JWT sessions, no adapter.
 *
 * Each timed callback needs a flow of its own, so `prepare` (outside the clock) runs that
 * library's POST /auth/signin/loopback and turns its redirect and cookies into the callback
 * request a browser would send back. CSRF is switched off with `skipCSRFCheck` for both, so
 * the sign-in needs no GET /auth/csrf first.
 */
import { Auth as AuthjsAuth, skipCSRFCheck as authjsSkipCSRF } from "@auth/core";
import { decode as authjsDecode } from "@auth/core/jwt";
import { Auth as GatehouseAuth, skipCSRFCheck as gatehouseSkipCSRF } from "@gatehousejs/core";
import { decode as gatehouseDecode } from "@gatehousejs/core/jwt";
import { check } from "./check.mjs";
import { ORIGIN, SALT, SECRET } from "./contenders.mjs";
import { CLIENT_ID, CLIENT_SECRET, PROFILE } from "./oauth-provider.mjs";

export const PROVIDER_ID = "loopback";
const AFTER_SIGN_IN = `${ORIGIN}/dashboard`;

/** The provider as both libraries take it (each gets its own copy). */
export function loopbackProvider(base) {
  return {
    id: PROVIDER_ID,
    name: "Loopback",
    type: "oauth",
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    authorization: `${base}/authorize`,
    token: `${base}/token`,
    userinfo: `${base}/userinfo`,
    checks: ["pkce"],
  };
}

const cookiePairs = (response) =>
  response.headers.getSetCookie().map((c) => c.slice(0, c.indexOf(";")));

function contender({ name, Auth, decode, skipCSRFCheck, base, logger }) {
  const config = {
    secret: SECRET,
    trustHost: true,
    basePath: "/auth",
    providers: [loopbackProvider(base)],
    skipCSRFCheck,
    logger,
  };
  let code = 0;

  /** A fresh sign-in, and the callback request that completes it. */
  async function callbackRequest() {
    const signIn = await Auth(
      new Request(`${ORIGIN}/auth/signin/${PROVIDER_ID}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ callbackUrl: AFTER_SIGN_IN }),
      }),
      config,
    );
    const location = signIn.headers.get("location") ?? "";
    check(signIn.status === 302, `${name}: sign-in answered ${signIn.status}, expected 302`);
    check(location.startsWith(`${base}/authorize?`), `${name}: sign-in did not go to the provider`);
    const authorize = new URL(location);
    check(authorize.searchParams.has("code_challenge"), `${name}: no PKCE challenge`);
    const url = new URL(`${ORIGIN}/auth/callback/${PROVIDER_ID}`);
    url.searchParams.set("code", `code-${++code}`);
    const state = authorize.searchParams.get("state");
    if (state) url.searchParams.set("state", state);
    return new Request(url, { headers: { cookie: cookiePairs(signIn).join("; ") } });
  }

  return {
    name,
    callback: { prepare: callbackRequest, run: (request) => Auth(request, config) },
    /** One untimed callback, checked: a redirect to the callbackUrl with a session for PROFILE. */
    async check() {
      const response = await Auth(await callbackRequest(), config);
      const location = response.headers.get("location");
      check(response.status === 302, `${name}: callback answered ${response.status}, expected 302`);
      check(location === AFTER_SIGN_IN, `${name}: callback redirected to ${location}`);
      const pairs = cookiePairs(response);
      const session = pairs.find((p) => p.startsWith(`${SALT}=`))?.slice(SALT.length + 1);
      check(session, `${name}: the callback set no session cookie`);
      const token = await decode({ token: session, secret: SECRET, salt: SALT });
      check(token?.email === PROFILE.email, `${name}: the session is not for the provider's user`);
      check(token.name === PROFILE.name, `${name}: the session user has the wrong name`);
      const pkceCleared = response.headers
        .getSetCookie()
        .some(
          (c) =>
            /pkce/i.test(c.slice(0, c.indexOf("="))) &&
            /max-age=0|expires=thu, 01 jan 1970/i.test(c),
        );
      return (
        `302 to the callbackUrl with a ${session.length}-char session` +
        (pkceCleared ? ", PKCE cookie cleared" : "")
      );
    },
  };
}

/** Both contenders for the callback scenario, against the provider at `base`. */
export function oauthContenders(base, logger) {
  return {
    Gatehouse: contender({
      name: "Gatehouse",
      Auth: GatehouseAuth,
      decode: gatehouseDecode,
      skipCSRFCheck: gatehouseSkipCSRF,
      base,
      logger,
    }),
    "@auth/core": contender({
      name: "@auth/core",
      Auth: AuthjsAuth,
      decode: authjsDecode,
      skipCSRFCheck: authjsSkipCSRF,
      base,
      logger,
    }),
  };
}
