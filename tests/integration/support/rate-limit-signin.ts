/**
 * A credentials sign-in through `Auth()` as a browser's `fetch` makes it, for the rate-limit
 * tests: the app (alice / wonderland) with `rateLimit` on a given store, and the client address
 * taken from a test header through the documented `clientAddress` hook.
 */
import { Auth } from "@gatehousejs/core";
import Credentials from "@gatehousejs/core/providers/credentials";
import type { AuthConfig, RateLimitOptions, RateLimitStore } from "@gatehousejs/core/types";

const ORIGIN = "http://localhost:3000";

/** The app: one credentials provider, `rateLimit` = `limits` on `store`, a quiet logger. */
export function signInConfig(
  secret: string,
  store: RateLimitStore,
  limits: Omit<RateLimitOptions, "store">,
): AuthConfig {
  return {
    secret,
    trustHost: true,
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
    // The hook for platforms that give the address another way: here, a test header.
    clientAddress: (request) => request.headers.get("x-test-client"),
    rateLimit: { ...limits, store },
    providers: [
      Credentials({
        credentials: {
          username: { label: "Username" },
          password: { label: "Password", type: "password" },
        },
        authorize: ({ username, password }) =>
          username === "alice" && password === "wonderland"
            ? { id: "user-1", name: "Alice", email: "alice@example.com" }
            : null,
      }),
    ],
  };
}

/** What one sign-in got. */
export interface SignInAnswer {
  status: number;
  retryAfter: string | null;
  signedIn: boolean;
}

/** The cookies a response sets, as one `Cookie` header value. */
const cookieHeader = (response: Response) =>
  response.headers
    .getSetCookie()
    .map((raw) => raw.split(";")[0])
    .join("; ");

/** A CSRF token, then the credentials POST with `X-Auth-Return-Redirect`, from `client`. */
export async function signIn(
  config: AuthConfig,
  client: string,
  password: string,
): Promise<SignInAnswer> {
  const headers = { "x-test-client": client };
  const csrf = await Auth(new Request(`${ORIGIN}/auth/csrf`, { headers }), config);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const response = await Auth(
    new Request(`${ORIGIN}/auth/callback/credentials`, {
      method: "POST",
      headers: {
        ...headers,
        cookie: cookieHeader(csrf),
        "content-type": "application/x-www-form-urlencoded",
        "x-auth-return-redirect": "1",
      },
      body: new URLSearchParams({ csrfToken, username: "alice", password }),
    }),
    config,
  );
  const signedIn = response.headers
    .getSetCookie()
    .some((cookie) => cookie.startsWith("authjs.session-token="));
  return { status: response.status, retryAfter: response.headers.get("retry-after"), signedIn };
}
