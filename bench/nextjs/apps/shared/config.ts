/**
 * The one configuration both apps use, word for word: a Credentials provider, JWT sessions,
 * the same secret, and a proxy that lets only signed-in requests through. `Credentials` is the
 * app's own library's provider (next-auth's or Gatehouse's); everything else is shared.
 */

export const SECRET = "nextjs-bench-secret-0123456789abcdef0123456789abcdef";

export const USER = { id: "3f1c2d4e-0000-4000-8000-000000000001", name: "Ada Lovelace" };

type CredentialsFactory = (options: {
  credentials: Record<string, { label?: string; type?: string }>;
  authorize: (
    credentials: Partial<Record<string, unknown>>,
  ) => Promise<{ id: string; name: string; email: string } | null>;
}) => unknown;

export function config(Credentials: CredentialsFactory) {
  return {
    secret: SECRET,
    trustHost: true,
    session: { strategy: "jwt" as const },
    providers: [
      Credentials({
        credentials: { email: { label: "Email", type: "email" }, password: { type: "password" } },
        authorize: async ({ email, password }) =>
          password === "correct horse" && typeof email === "string"
            ? { id: USER.id, name: USER.name, email }
            : null,
      }),
    ],
    callbacks: {
      // The proxy's gate: a request without a session is sent to the sign-in page.
      authorized: ({ auth }: { auth: unknown }) => Boolean(auth),
    },
  };
}
