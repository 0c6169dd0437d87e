import { auth } from "../../auth";

/** Behind the proxy, and reads the session again in the Server Component. */
export default async function Protected() {
  const session = await auth();
  return (
    <main>
      <h1>Protected page</h1>
      <p>
        {session?.user?.name} ({session?.user?.email})
      </p>
    </main>
  );
}
