/**
 * The two libraries under the same configuration: same secret, trustHost, one Credentials
 * provider, basePath "/auth", JWT sessions (the default for both without an adapter). Each
 * mints its own session cookie with its own `encode` and the cookie name as salt, issued now, so
 * Gatehouse's `updateAge` (a day by default) does not re-issue it during the run.
 *
 * Gatehouse is imported by package name, which resolves to the built `dist/` through the
 * exports map's "default" condition: the bench measures what users install.
 */
import { Auth as AuthjsAuth } from "@auth/core";
import { decode as authjsDecode, encode as authjsEncode } from "@auth/core/jwt";
import AuthjsCredentials from "@auth/core/providers/credentials";
import { Auth as GatehouseAuth } from "@gatehousejs/core";
import { decode as gatehouseDecode, encode as gatehouseEncode } from "@gatehousejs/core/jwt";
import GatehouseCredentials from "@gatehousejs/core/providers/credentials";

export const SECRET = "bench-secret-0123456789abcdef0123456789abcdef";
export const SALT = "authjs.session-token";
export const ORIGIN = "http://localhost:3000";
export const USER = {
  name: "Ada Lovelace",
  email: "ada@example.com",
  picture: "https://example.com/ada.png",
  sub: "3f1c2d4e-0000-4000-8000-000000000001",
};

const credentials = {
  credentials: { email: { label: "Email", type: "email" }, password: { type: "password" } },
  authorize: async ({ email }) => ({ id: USER.sub, name: USER.name, email: String(email) }),
};

export function sessionRequest(cookie) {
  const headers = cookie ? { cookie: `${SALT}=${cookie}` } : {};
  return new Request(`${ORIGIN}/auth/session`, { headers });
}

/** Builds the four operations of one library around its own `Auth`, `encode` and `decode`. */
async function contender({ name, Auth, encode, decode, config }) {
  const cookie = await encode({ token: USER, secret: SECRET, salt: SALT });
  // A fresh Request per call, as a server gets one; it is built outside the clock (see
  // harness.mjs), so neither library can reuse work cached on a shared object and the timing
  // is the library's own. Reading the body is left to the checks: it is the server's cost.
  const session = (withCookie) => ({
    prepare: () => sessionRequest(withCookie ? cookie : undefined),
    run: (request) => Auth(request, config),
  });
  // The same call end to end, as a server sees it: build the Request, answer, read the body.
  const endToEnd = (withCookie) => async () => {
    const response = await Auth(sessionRequest(withCookie ? cookie : undefined), config);
    await response.text();
  };
  return {
    name,
    cookie,
    sessionWithCookie: session(true),
    sessionNoCookie: session(false),
    sessionWithCookieEndToEnd: endToEnd(true),
    sessionNoCookieEndToEnd: endToEnd(false),
    decode: () => decode({ token: cookie, secret: SECRET, salt: SALT }),
    decodeToken: (token) => decode({ token, secret: SECRET, salt: SALT }),
    encode: () => encode({ token: USER, secret: SECRET, salt: SALT }),
  };
}

/** Both contenders, keyed by the name printed in the table. */
export async function contenders() {
  return {
    Gatehouse: await contender({
      name: "Gatehouse",
      Auth: GatehouseAuth,
      encode: gatehouseEncode,
      decode: gatehouseDecode,
      config: {
        secret: SECRET,
        trustHost: true,
        basePath: "/auth",
        providers: [GatehouseCredentials(credentials)],
      },
    }),
    "@auth/core": await contender({
      name: "@auth/core",
      Auth: AuthjsAuth,
      encode: authjsEncode,
      decode: authjsDecode,
      config: {
        secret: SECRET,
        trustHost: true,
        basePath: "/auth",
        providers: [AuthjsCredentials(credentials)],
      },
    }),
  };
}
