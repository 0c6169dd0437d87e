import { connection } from "next/server";

/**
 * The floor: no proxy (the matcher skips it), no auth(); rendered on every request like the
 * protected page (`connection()` makes it dynamic), so the two differ by the library's work only.
 */
export default async function Home() {
  await connection();
  return (
    <main>
      <h1>Public page</h1>
      <p>Nobody in particular (nobody@example.com)</p>
    </main>
  );
}
