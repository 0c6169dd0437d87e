import { cookies } from "next/headers";

/**
 * No library: the floor under both. `auth()` reads the cookies (so the page stays dynamic, as with
 * a library) and answers a fixed session, so the protected page renders the same markup.
 */
export async function auth() {
  await cookies();
  return { user: { name: "Ada Lovelace", email: "ada@example.com" } };
}
