"use client";
import { changeEmail, removePassword, setPassword, useSession } from "@gatehousejs/nextjs/client";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { Answer } from "@/components/Answer";
import { SignedOut } from "@/components/SignedOut";
import { type Refusal, refusalOf } from "@/lib/route-answer";

const PAGE = "/account";

/** The value of a form's field, as a string. */
const field = (form: HTMLFormElement, name: string) => String(new FormData(form).get(name) ?? "");

/**
 * The signed-in user's account, with the client kit's password calls (each fetches the CSRF token
 * and posts JSON to the auth route):
 *
 * - `changeEmail()`: a link goes to the new address; the address changes when it is confirmed
 *   there, and every browser signed in to the account is signed out.
 * - `setPassword()`: a password for an account that signs in another way (an email link, a
 *   passkey, the OpenID provider); it needs a sign-in from the last ten minutes.
 * - `removePassword()`: takes it away again, while another way in remains; every other browser
 *   is signed out.
 *
 * The session does not say whether the account has a password, so both forms are shown and the
 * route's answer is what the page says.
 */
export default function Account() {
  const { data, status } = useSession();
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [emailAnswer, setEmailAnswer] = useState<Refusal | null>(null);
  const [passwordAnswer, setPasswordAnswer] = useState<Refusal | null>(null);

  /** Runs a call with the submitted form, then shows the route's message. */
  function submitWith(
    call: (form: HTMLFormElement) => Promise<{ message: string }>,
    show: (answer: Refusal) => void,
    failed: string,
  ) {
    return async (event: FormEvent<HTMLFormElement>) => {
      event.preventDefault();
      const form = event.currentTarget;
      setBusy(true);
      setEmailAnswer(null);
      setPasswordAnswer(null);
      try {
        const done = await call(form);
        form.reset();
        show({ message: done.message });
      } catch (error) {
        show(refusalOf(error, failed, PAGE));
      } finally {
        setBusy(false);
      }
    };
  }

  const moveAddress = submitWith(
    (form) => {
      const currentPassword = field(form, "currentPassword");
      return changeEmail({
        newEmail: field(form, "newEmail"),
        // Left empty by an account without a password: a recent sign-in stands for it.
        currentPassword: currentPassword === "" ? undefined : currentPassword,
      });
    },
    setEmailAnswer,
    "The address was not changed.",
  );
  const addPassword = submitWith(
    (form) => setPassword({ password: field(form, "password") }),
    setPasswordAnswer,
    "The password was not set.",
  );
  const takePasswordAway = submitWith(
    async (form) => {
      const removed = await removePassword({ currentPassword: field(form, "currentPassword") });
      // The session was issued anew: the Server Components read it again.
      router.refresh();
      return removed;
    },
    setPasswordAnswer,
    "The password was not removed.",
  );

  const user = status === "authenticated" ? data?.user : undefined;
  return (
    <section className="card">
      <h1>Account</h1>
      {status === "loading" ? <p className="muted">Reading the session…</p> : null}
      {status === "unauthenticated" ? <SignedOut page={PAGE} testId="account" /> : null}
      {user ? (
        <>
          <h2>Email address</h2>
          <p>
            Your account's address is <span data-testid="account-email">{user.email}</span>. To move
            it, we email a link to the new address: it changes when you open the link there, and
            every browser signed in to your account is signed out.
          </p>
          <form className="stack" onSubmit={moveAddress}>
            <label>
              New address
              <input
                name="newEmail"
                type="email"
                autoComplete="email"
                required
                data-testid="account-new-email"
              />
            </label>
            <label>
              Current password (if your account has one)
              <input
                name="currentPassword"
                type="password"
                autoComplete="current-password"
                data-testid="account-current-password"
              />
            </label>
            <button type="submit" disabled={busy} data-testid="account-change-email">
              Send the link
            </button>
          </form>
          <Answer answer={emailAnswer} testId="account-email" />

          <h2>Password</h2>
          <p>
            A password lets your account also sign in with its address, beside an email link, a
            passkey or the OpenID provider. Already have one?{" "}
            <Link href="/change-password" data-testid="account-change-password">
              Change your password
            </Link>
            .
          </p>
          <h3>Set a password</h3>
          <p className="muted">
            For an account that has none. Sign in again first if your sign-in is more than ten
            minutes old.
          </p>
          <form className="stack" onSubmit={addPassword}>
            <input type="hidden" name="username" autoComplete="username" value={user.email ?? ""} />
            <label>
              New password
              <input
                name="password"
                type="password"
                autoComplete="new-password"
                required
                data-testid="account-password-new"
              />
            </label>
            <button type="submit" disabled={busy} data-testid="account-password-set">
              Set password
            </button>
          </form>
          <h3>Remove the password</h3>
          <p className="muted">
            Your account then signs in only the other ways, and every other browser signed in to it
            is signed out. Refused while the password is the only way in.
          </p>
          <form className="stack" onSubmit={takePasswordAway}>
            <input type="hidden" name="username" autoComplete="username" value={user.email ?? ""} />
            <label>
              Current password
              <input
                name="currentPassword"
                type="password"
                autoComplete="current-password"
                required
                data-testid="account-password-current"
              />
            </label>
            <button
              type="submit"
              className="secondary"
              disabled={busy}
              data-testid="account-password-remove"
            >
              Remove password
            </button>
          </form>
          <Answer answer={passwordAnswer} testId="account-password" />

          <h2>Two-factor sign-in</h2>
          <p>
            With it on, a sign-in with a password, an email link or a code also asks for a code from
            an authenticator app, or one of your backup codes:{" "}
            <Link href="/two-factor" data-testid="account-two-factor">
              set up or turn off two-factor sign-in
            </Link>
            .
          </p>
        </>
      ) : null}
    </section>
  );
}
