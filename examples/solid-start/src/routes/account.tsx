import { AuthRouteError, changeEmail, createSession } from "@gatehousejs/solid-start/client";
import { A } from "@solidjs/router";
import { createSignal, Match, Switch } from "solid-js";
import SignInLink from "~/components/SignInLink";

/**
 * The signed-in user's account: change the address with `changeEmail()` (`POST
 * /api/auth/change-email/password` with the CSRF token). Nothing changes yet: a link goes to the
 * new address, and the address changes when it is opened and confirmed there; then every browser
 * signed in to the account is signed out, and the old address is told. An account with a
 * password gives it; one without needs a sign-in from the last ten minutes. The "Password" page
 * (./password.tsx) sets or removes the account's password; the auth route's built-in page
 * `/api/auth/two-factor` sets up and turns off two-factor sign-in.
 */
export default function Account() {
  const auth = createSession();
  const [saving, setSaving] = createSignal(false);
  const [message, setMessage] = createSignal("");

  async function submit(event: SubmitEvent) {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const currentPassword = String(data.get("currentPassword") ?? "");
    setSaving(true);
    setMessage("");
    try {
      const asked = await changeEmail({
        newEmail: String(data.get("newEmail") ?? ""),
        // Left empty by an account without a password: it relies on a recent sign-in instead.
        currentPassword: currentPassword === "" ? undefined : currentPassword,
      });
      form.reset();
      setMessage(asked.message);
    } catch (error) {
      // The route's own words: a wrong password, the same address, a sign-in too old.
      setMessage(
        error instanceof AuthRouteError
          ? (error.detail ?? "The address was not changed.")
          : "The address was not changed. Try again.",
      );
    } finally {
      setSaving(false);
    }
  }

  return (
    <section class="card">
      <h1>Account</h1>
      <Switch>
        <Match when={auth.status() === "loading"}>
          <p class="muted">Reading the session…</p>
        </Match>
        <Match when={auth.status() === "unauthenticated"}>
          <p data-testid="account-signed-out">
            You are not signed in. <SignInLink testId="account-sign-in" />
          </p>
        </Match>
        <Match when={auth.session()?.user}>
          {(user) => (
            <>
              <h2>Email address</h2>
              <p>
                Your account's address is <span data-testid="account-email">{user().email}</span>.
                To move it to another one, we email a link to the new address: it changes when you
                open the link and confirm, and then every browser signed in to your account is
                signed out.
              </p>
              <form onSubmit={submit}>
                <input
                  type="hidden"
                  name="username"
                  autocomplete="username"
                  value={user().email ?? ""}
                />
                <p>
                  <label>
                    New address{" "}
                    <input
                      name="newEmail"
                      type="email"
                      autocomplete="email"
                      required
                      data-testid="account-new-email"
                    />
                  </label>
                </p>
                <p>
                  <label>
                    Current password{" "}
                    <input
                      name="currentPassword"
                      type="password"
                      autocomplete="current-password"
                      data-testid="account-current-password"
                    />
                  </label>{" "}
                  <span class="muted">(leave empty if your account has none)</span>
                </p>
                <button type="submit" disabled={saving()} data-testid="account-change-email">
                  Change address
                </button>
              </form>
              <p class="muted" role="status" data-testid="account-message">
                {message()}
              </p>
              <h2>Password</h2>
              <p>
                An account that signs in with an email link, a passkey or the OpenID provider can
                also have a password, and lose it again:{" "}
                <A href="/password" data-testid="account-password">
                  set or remove a password
                </A>
                .
              </p>
              <h2>Two-factor sign-in</h2>
              <p>
                With it on, a sign-in with a password, an email link or a code also asks for a code
                from an authenticator app on your phone, or one of your backup codes:{" "}
                {/* A built-in page of the auth route: loaded by the browser, not the router. */}
                <a href="/api/auth/two-factor" rel="external" data-testid="account-two-factor">
                  set up or turn off two-factor sign-in
                </a>
                .
              </p>
            </>
          )}
        </Match>
      </Switch>
    </section>
  );
}
