"use client";
import { useSession } from "@gatehousejs/nextjs/client";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { signIn } from "@/lib/passkeys";

/**
 * "Sign in with a passkey": the browser's passkey prompt right on the page (`signIn("passkey")`
 * of the client kit), then the page again, signed in.
 */
export function PasskeySignIn({ redirectTo = "/" }: { redirectTo?: string }) {
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const router = useRouter();
  const { update } = useSession();

  async function run() {
    setError("");
    setBusy(true);
    try {
      const result = await signIn("passkey", { redirect: false });
      if (!result?.ok) {
        setError("That passkey did not sign you in.");
        return;
      }
      await update();
      router.push(redirectTo);
      router.refresh();
    } catch {
      setError("No passkey was used.");
    } finally {
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
        data-testid="passkey-sign-in"
      >
        Sign in with a passkey
      </button>
      {error ? (
        <p className="muted" role="alert" data-testid="passkey-sign-in-error">
          {error}
        </p>
      ) : null}
    </>
  );
}
