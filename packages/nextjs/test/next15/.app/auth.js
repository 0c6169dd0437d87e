// The Next.js 15 fixture's auth.js: Credentials, JWT sessions, /protected guarded by the
// middleware with the `protect` option (no authorized callback).
import Credentials from "@gatehousejs/core/providers/credentials";
import Gatehouse from "@gatehousejs/nextjs";

export const { handlers, auth, signIn, signOut } = Gatehouse({
  providers: [
    Credentials({
      credentials: { username: {}, password: {} },
      authorize: (credentials) =>
        credentials.username === "ada" && credentials.password === "analytical-engine"
          ? { id: "user-ada", name: "Ada Lovelace", email: "ada@example.com" }
          : null,
    }),
  ],
  session: { strategy: "jwt" },
  protect: ["/protected"],
});
