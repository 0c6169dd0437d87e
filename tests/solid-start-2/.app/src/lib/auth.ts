/**
 * The one configuration of the route, the queries and the middleware. The secret comes from
 * AUTH_SECRET and host trust from AUTH_TRUST_HOST, both set by the test when it starts the server.
 * `updateAge: 0` re-issues the session cookie on every check, so the test sees whether a renewed
 * cookie reaches the responses of pages and middleware.
 */
import type { SolidAuthConfig } from "@gatehousejs/solid-start";
import Credentials from "@gatehousejs/solid-start/providers/credentials";

/** The one account of the fixture. */
export const FIXTURE_USER = {
  id: "user-1",
  name: "Ada Lovelace",
  email: "ada@example.com",
  password: "analytical-engine",
};

export const authConfig: SolidAuthConfig = {
  session: { updateAge: 0 },
  providers: [
    Credentials({
      credentials: { email: { type: "email" }, password: { type: "password" } },
      authorize({ email, password }) {
        if (email !== FIXTURE_USER.email || password !== FIXTURE_USER.password) return null;
        return { id: FIXTURE_USER.id, name: FIXTURE_USER.name, email: FIXTURE_USER.email };
      },
    }),
  ],
};
