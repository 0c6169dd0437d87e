import type { SolidAuthConfig } from "@gatehousejs/solid-start";
import Credentials from "@gatehousejs/solid-start/providers/credentials";

/** One user, ada@example.com / analytical-engine; the secret comes from AUTH_SECRET. */
export const authConfig: SolidAuthConfig = {
  providers: [
    Credentials({
      credentials: { email: {}, password: {} },
      authorize: ({ email, password }) =>
        email === "ada@example.com" && password === "analytical-engine"
          ? { id: "ada", name: "Ada Lovelace", email: "ada@example.com" }
          : null,
    }),
  ],
};
