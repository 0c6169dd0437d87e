import {
  AuthRouteError,
  createSession,
  removePassword,
  setPassword,
} from "@gatehousejs/solid-start/client";
import { revalidate } from "@solidjs/router";
import { createSignal, Match, Switch } from "solid-js";
import SignInLink from "~/components/SignInLink";
import { sessionQuery } from "~/lib/session";

/**
 * The signed-in user adds a password to an account that signs in another way (an email link, a
 * passkey, the OpenID provider) with `setPassword()` (`POST /api/auth/set-password/password`), or
 * takes it away with `removePassword()` (`POST /api/auth/remove-password/password`), both with the
 * CSRF token. Setting needs a sign-in from the last ten minutes; removing needs the current
 * password and another way in the server is sure of, and signs out every other browser. The
 * session does not say whether the account has a password, so both forms are shown and the
 * server's answer is the one shown.
 */
export default function Password() {
  const auth = createSession();
  const [saving, setSaving] = createSignal(false);
  const [message, setMessage] = createSignal("");

  /** Runs one of the two calls with the form's field, and shows what the server said. */
  function submitWith(call: (form: FormData) => Promise<{ message: string }>, failed: string) {
    return async (event: SubmitEvent) => {
      event.preventDefault();
      const form = event.currentTarget as HTMLFormElement;
      setSaving(true);
      setMessage("");
      try {
        const done = await call(new FormData(form));
        form.reset();
        setMessage(done.message);
      } catch (error) {
        // The route's own words: a password already set, a sign-in too old, a refused password,
        // a wrong current one, no password to remove, the last way in.
        setMessage(
          error instanceof AuthRouteError ? (error.detail ?? failed) : `${failed} Try again.`,
        );
      } finally {
        setSaving(false);
      }
    };
  }

  const set = submitWith(
    (data) => setPassword({ password: String(data.get("password") ?? "") }),
    "The password was not set.",
  );
  const remove = submitWith(async (data) => {
    const removed = await removePassword({
      currentPassword: String(data.get("currentPassword") ?? ""),
    });
    // The session was re-issued: the server-rendered pages read it anew.
    await revalidate(sessionQuery.key);
    return removed;
  }, "The password was not removed.");

  return (
    <section class="card">
      <h1>Password</h1>
      <Switch>
        <Match when={auth.status() === "loading"}>
          <p class="muted">Reading the session…</p>
        </Match>
        <Match when={auth.status() === "unauthenticated"}>
          <p data-testid="password-signed-out">
            You are not signed in. <SignInLink testId="password-sign-in" />
          </p>
        </Match>
        <Match when={auth.session()?.user}>
          {(user) => (
            <>
              <p>
                A password lets your account (
                <span data-testid="password-email">{user().email}</span>) also sign in with its
                address, beside the email link, a passkey or the OpenID provider.
              </p>
              <h2>Set a password</h2>
              <p class="muted">
                For an account that has none. Sign in again first if your sign-in is more than ten
                minutes old.
              </p>
              <form onSubmit={set}>
                <input
                  type="hidden"
                  name="username"
                  autocomplete="username"
                  value={user().email ?? ""}
                />
                <p>
                  <label>
                    New password{" "}
                    <input
                      name="password"
                      type="password"
                      autocomplete="new-password"
                      required
                      data-testid="password-new"
                    />
                  </label>
                </p>
                <button type="submit" disabled={saving()} data-testid="password-set">
                  Set password
                </button>
              </form>
              <h2>Remove the password</h2>
              <p class="muted">
                Your account then signs in only the other ways, and every other browser signed in to
                it is signed out. Refused while the password is the only way in.
              </p>
              <form onSubmit={remove}>
                <input
                  type="hidden"
                  name="username"
                  autocomplete="username"
                  value={user().email ?? ""}
                />
                <p>
                  <label>
                    Current password{" "}
                    <input
                      name="currentPassword"
                      type="password"
                      autocomplete="current-password"
                      required
                      data-testid="password-current"
                    />
                  </label>
                </p>
                <button
                  type="submit"
                  class="secondary"
                  disabled={saving()}
                  data-testid="password-remove"
                >
                  Remove password
                </button>
              </form>
              <p class="muted" role="status" data-testid="password-message">
                {message()}
              </p>
            </>
          )}
        </Match>
      </Switch>
    </section>
  );
}
