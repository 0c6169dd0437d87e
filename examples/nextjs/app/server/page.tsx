import { redirect } from "next/navigation";
import { auth } from "@/auth";
import { SignOutButton } from "@/components/SignOutButton";
import { When } from "@/components/When";

/**
 * A Server Component that checks the session itself: `auth()` on the server, and without a
 * session the app's sign-in page, which comes back here. Its sign-out is a plain form posting to
 * a Server Action.
 */
export default async function ServerPage() {
  const session = await auth();
  if (!session?.user) redirect("/login?callbackUrl=%2Fserver");
  const { user } = session;
  return (
    <section className="card" data-testid="server-content">
      <h1>Server Component</h1>
      <p>
        This page called <code>auth()</code> on the server: you are{" "}
        <strong data-testid="server-name">{user.name || user.email || "a passkey user"}</strong>
        {user.email ? (
          <>
            {" "}
            (<span data-testid="server-email">{user.email}</span>)
          </>
        ) : null}
        .
      </p>
      {session.expires ? (
        <p className="muted">
          The session expires on <When at={session.expires} />. Rendered at{" "}
          <When at={new Date().toISOString()} />.
        </p>
      ) : null}
      <SignOutButton testId="server-sign-out" />
    </section>
  );
}
