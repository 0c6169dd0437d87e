"use client";
import { signOut } from "@gatehousejs/nextjs/client";
import { useState } from "react";

/**
 * "Sign out of the identity provider too": `signOut({ federated: true })` of the client kit ends
 * the session here, then sends the browser to the OpenID provider's end-session page, which
 * comes back to the home page. Offered only for a session that signed in through the provider.
 */
export function FederatedSignOutButton() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");

  async function run() {
    setBusy(true);
    setError("");
    try {
      await signOut({ redirectTo: "/", federated: true });
    } catch {
      setError("You were not signed out. Reload the page and try again.");
      setBusy(false);
    }
  }

  return (
    <>
      <button
        type="button"
        className="secondary"
        disabled={busy}
        onClick={run}
        data-testid="sign-out-federated"
      >
        Sign out of the identity provider too
      </button>
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
    </>
  );
}
