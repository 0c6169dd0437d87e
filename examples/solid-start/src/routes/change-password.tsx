import { AuthRouteError, changePassword, createSession } from "@gatehousejs/solid-start/client";
import { revalidate, useLocation } from "@solidjs/router";
import { createSignal, Match, Show, Switch } from "solid-js";
import SignInLink from "~/components/SignInLink";
import { sessionQuery } from "~/lib/session";

/**
 * The signed-in user changes the password of their password account with `changePassword()`
 * (`POST /api/auth/change-password/password` with the CSRF token): the current password, then a
 * new one the policy accepts. Every other browser signed in to the account is signed out; this
 * one stays signed in, under a new session. With two-factor sign-in on, the change needs a
 * sign-in from the last ten minutes: the route refuses an older session with
 * `ReauthenticationRequired` and the sign-in page's address (`signInUrl`), and the page offers
 * to sign in again there, coming back here.
 */
export default function ChangePassword() {
  const auth = createSession();
  const [saving, setSaving] = createSignal(false);
  const [message, setMessage] = createSignal("");
  const location = useLocation();
  const [signInAgain, setSignInAgain] = createSignal<string>();

  /**
   * The refusal's sign-in page, coming back to this page: the route names its own built-in
   * change-password page as the way back, and this app changes the password here.
   */
  function signInAgainUrl(error: AuthRouteError): string | undefined {
    if (error.error !== "ReauthenticationRequired" || !error.signInUrl) return undefined;
    const url = new URL(error.signInUrl);
    url.searchParams.set("callbackUrl", location.pathname);
    return url.href;
  }

  async function submit(event: SubmitEvent) {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    setSaving(true);
    setMessage("");
    setSignInAgain(undefined);
    try {
      const changed = await changePassword({
        currentPassword: String(data.get("currentPassword") ?? ""),
        newPassword: String(data.get("newPassword") ?? ""),
      });
      form.reset();
      setMessage(changed.message);
      // The session was re-issued: the server-rendered pages read it anew.
      await revalidate(sessionQuery.key);
    } catch (error) {
      // The route's own words: a wrong current password, a refused new one, no password account.
      setMessage(
        error instanceof AuthRouteError
          ? (error.detail ?? "The password was not changed.")
          : "The password was not changed. Try again.",
      );
      // A sign-in too old for this change: signing in again (both factors) proves it anew.
      if (error instanceof AuthRouteError) setSignInAgain(signInAgainUrl(error));
    } finally {
      setSaving(false);
    }
  }

  return (
    <section class="card">
      <h1>Change password</h1>
      <Switch>
        <Match when={auth.status() === "loading"}>
          <p class="muted">Reading the session…</p>
        </Match>
        <Match when={auth.status() === "unauthenticated"}>
          <p data-testid="change-password-signed-out">
            You are not signed in. <SignInLink testId="change-password-sign-in" />
          </p>
        </Match>
        <Match when={auth.session()?.user}>
          {(user) => (
            <>
              <p>
                The password of the account you made with "Create an account" (
                <span data-testid="change-password-email">{user().email}</span>). Every other
                browser signed in to it is signed out.
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
                    Current password{" "}
                    <input
                      name="currentPassword"
                      type="password"
                      autocomplete="current-password"
                      required
                      data-testid="change-password-current"
                    />
                  </label>
                </p>
                <p>
                  <label>
                    New password{" "}
                    <input
                      name="newPassword"
                      type="password"
                      autocomplete="new-password"
                      required
                      data-testid="change-password-new"
                    />
                  </label>
                </p>
                <button type="submit" disabled={saving()} data-testid="change-password-submit">
                  Change password
                </button>
              </form>
              <p class="muted" role="status" data-testid="change-password-message">
                {message()}
              </p>
              <Show when={signInAgain()}>
                {(href) => (
                  <p>
                    {/* A server page, not one of the app's: the browser loads it. */}
                    <a
                      class="button"
                      href={href()}
                      rel="external"
                      data-testid="change-password-sign-in-again"
                    >
                      Sign in again
                    </a>
                  </p>
                )}
              </Show>
            </>
          )}
        </Match>
      </Switch>
    </section>
  );
}
