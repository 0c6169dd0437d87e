// The fixture's auth.ts for middleware.ts on the edge runtime (Next.js 15's way, still served by
// Next.js 16): an authorized callback decides, as in a next-auth v5 app.
import Credentials from "@gatehousejs/core/providers/credentials";
import Gatehouse from "@gatehousejs/nextjs";

export const { handlers, auth } = Gatehouse({
  providers: [
    Credentials({
      credentials: { username: {}, password: {} },
      authorize: (credentials) =>
        credentials.username === "alice" && credentials.password === "wonderland"
          ? { id: "user-alice", name: "Alice", email: "alice@example.com" }
          : null,
    }),
  ],
  session: {
    maxAge: Number(process.env.FIXTURE_MAX_AGE ?? 3600),
    updateAge: Number(process.env.FIXTURE_UPDATE_AGE ?? 600),
  },
  callbacks: {
    authorized: ({ request, auth }) =>
      new URL(request.url).pathname.startsWith("/dashboard") ? Boolean(auth?.user) : true,
  },
});
