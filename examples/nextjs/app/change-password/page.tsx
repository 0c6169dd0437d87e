"use client";
import { changePassword, useSession } from "@gatehousejs/nextjs/client";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { Answer } from "@/components/Answer";
import { SignedOut } from "@/components/SignedOut";
import { type Refusal, refusalOf } from "@/lib/route-answer";

const PAGE = "/change-password";

/**
 * The signed-in user changes the password of their password account with `changePassword()` of
 * the client kit (`POST /api/auth/change-password/password` with the CSRF token): the current
 * password, then a new one the policy accepts. Every other browser signed in to the account is
 * signed out; this one stays signed in, under a new session. With two-factor sign-in on, the
 * change needs a sign-in from the last ten minutes: the page then offers to sign in again.
 */
export default function ChangePassword() {
  const { data, status } = useSession();
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<Refusal | null>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const fields = new FormData(form);
    setBusy(true);
    setAnswer(null);
    try {
      const changed = await changePassword({
        currentPassword: String(fields.get("currentPassword") ?? ""),
        newPassword: String(fields.get("newPassword") ?? ""),
      });
      form.reset();
      setAnswer({ message: changed.message });
      // The session was issued anew: the Server Components read it again.
      router.refresh();
    } catch (error) {
      // The route's own words: a wrong current password, a refused new one, no password account.
      setAnswer(refusalOf(error, "The password was not changed.", PAGE));
    } finally {
      setBusy(false);
    }
  }

  const user = status === "authenticated" ? data?.user : undefined;
  return (
    <section className="card">
      <h1>Change password</h1>
      {status === "loading" ? <p className="muted">Reading the session…</p> : null}
      {status === "unauthenticated" ? <SignedOut page={PAGE} testId="change-password" /> : null}
      {user ? (
        <>
          <p>
            The password of the account you made with "Create an account" (
            <span data-testid="change-password-email">{user.email}</span>). Every other browser
            signed in to it is signed out.
          </p>
          <form className="stack" onSubmit={submit}>
            <input type="hidden" name="username" autoComplete="username" value={user.email ?? ""} />
            <label>
              Current password
              <input
                name="currentPassword"
                type="password"
                autoComplete="current-password"
                required
                data-testid="change-password-current"
              />
            </label>
            <label>
              New password
              <input
                name="newPassword"
                type="password"
                autoComplete="new-password"
                required
                data-testid="change-password-new"
              />
            </label>
            <button type="submit" disabled={busy} data-testid="change-password-submit">
              Change password
            </button>
          </form>
          <Answer answer={answer} testId="change-password" />
        </>
      ) : null}
    </section>
  );
}
