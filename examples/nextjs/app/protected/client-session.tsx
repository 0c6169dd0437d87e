"use client";
import { useSession } from "@gatehousejs/nextjs/client";

/** The session as the browser sees it: `useSession()`, seeded by the layout's provider. */
export function ClientSession() {
  const { data, status } = useSession();
  if (status === "loading") return <p className="muted">Reading the session…</p>;
  if (!data?.user) return <p data-testid="protected-signed-out">You are not signed in.</p>;
  return (
    <p>
      In the browser, <code>useSession()</code> says you are{" "}
      <strong data-testid="protected-name">
        {data.user.name || data.user.email || "a passkey user"}
      </strong>
      .
    </p>
  );
}
