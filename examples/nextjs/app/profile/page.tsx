"use client";
import { useSession } from "@gatehousejs/nextjs/client";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { registerPasskey } from "@/lib/passkeys";

/**
 * Updates the session from the browser (`update({ name })` of `useSession()` is
 * `POST /api/auth/session`; the `jwt` callback in auth.ts takes the name), and adds a passkey to
 * the account (`registerPasskey()`: the browser's prompt, then `POST /api/auth/callback/passkey`).
 */
export default function Profile() {
  const { data, status, update } = useSession();
  const router = useRouter();
  const [saving, setSaving] = useState(false);
  const [message, setMessage] = useState("");
  const [adding, setAdding] = useState(false);
  const [passkeyMessage, setPasskeyMessage] = useState("");

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget).get("name") ?? "").trim();
    if (!name) return;
    setSaving(true);
    try {
      const updated = await update({ name });
      setMessage(updated ? "Saved in your session." : "The session could not be updated.");
      // The Server Components show the new name from now on.
      if (updated) router.refresh();
    } finally {
      setSaving(false);
    }
  }

  async function addPasskey() {
    setAdding(true);
    setPasskeyMessage("");
    try {
      const result = await registerPasskey({ redirect: false });
      // Adding a passkey signs in anew: read the session again.
      if (result.ok) {
        await update();
        router.refresh();
      }
      setPasskeyMessage(
        result.ok
          ? "Passkey added: next time, sign in with it."
          : "The passkey could not be added. Try again.",
      );
    } catch {
      // The person closed the browser's prompt, or no authenticator could answer.
      setPasskeyMessage("No passkey was added.");
    } finally {
      setAdding(false);
    }
  }

  return (
    <section className="card">
      <h1>Profile</h1>
      {status === "loading" ? <p className="muted">Reading the session…</p> : null}
      {status === "unauthenticated" ? (
        <p data-testid="profile-signed-out">
          You are not signed in.{" "}
          <Link
            className="button"
            href="/login?callbackUrl=%2Fprofile"
            data-testid="profile-sign-in"
          >
            Sign in
          </Link>
        </p>
      ) : null}
      {status === "authenticated" && data?.user ? (
        <>
          <p>
            Your name in the session:{" "}
            <strong data-testid="profile-name">{data.user.name ?? "(none)"}</strong>
          </p>
          <form onSubmit={save}>
            <label>
              New name{" "}
              <input name="name" maxLength={80} required data-testid="profile-name-input" />
            </label>{" "}
            <button type="submit" disabled={saving} data-testid="profile-save">
              Update the session
            </button>
          </form>
          <p className="muted" data-testid="profile-message" aria-live="polite">
            {message}
          </p>
          <h2>Passkeys</h2>
          <p>
            Sign in with your fingerprint, face or device PIN instead of a password: add a passkey
            to this account.
          </p>
          <button type="button" disabled={adding} onClick={addPasskey} data-testid="passkey-add">
            Add a passkey
          </button>
          <p className="muted" data-testid="passkey-message" aria-live="polite">
            {passkeyMessage}
          </p>
        </>
      ) : null}
    </section>
  );
}
