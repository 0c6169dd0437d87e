import type { PasskeyInfo } from "@gatehousejs/solid-start/client";
import {
  AuthRouteError,
  changeEmail,
  createSession,
  listPasskeys,
  removePasskey,
} from "@gatehousejs/solid-start/client";
import { A } from "@solidjs/router";
import { createSignal, For, Match, onMount, Show, Switch } from "solid-js";
import SignInLink from "~/components/SignInLink";

/** A short label for a passkey: the end of its credential id, which is all the server keeps. */
const labelOf = (passkey: PasskeyInfo) => `Passkey …${passkey.credentialID.slice(-6)}`;

/**
 * The user's passkeys (`listPasskeys()` is `GET /api/auth/passkeys`), each with "Remove"
 * (`removePasskey()` is `POST /api/auth/passkeys/remove`). Removing one is a sensitive action:
 * with two-factor sign-in on and a sign-in older than ten minutes, the server answers
 * `ReauthenticationRequired` and names the sign-in page, which comes back here; and the last
 * way in to the account is never removed.
 */
function Passkeys() {
  const [passkeys, setPasskeys] = createSignal<PasskeyInfo[] | undefined>(undefined);
  const [message, setMessage] = createSignal("");
  const [signInUrl, setSignInUrl] = createSignal<string | undefined>(undefined);
  const [busy, setBusy] = createSignal(false);

  onMount(async () => {
    try {
      setPasskeys((await listPasskeys()) ?? []);
    } catch {
      setPasskeys([]);
      setMessage("Your passkeys could not be read. Reload the page and try again.");
    }
  });

  async function remove(passkey: PasskeyInfo) {
    setBusy(true);
    setMessage("");
    setSignInUrl(undefined);
    try {
      const removed = await removePasskey(passkey.credentialID, { callbackUrl: "/account" });
      setPasskeys(removed.passkeys);
      setMessage(removed.message);
    } catch (error) {
      if (error instanceof AuthRouteError) {
        // ReauthenticationRequired: a link to sign in again, which comes back to this page.
        setSignInUrl(error.signInUrl);
        setMessage(error.detail ?? "The passkey was not removed.");
      } else {
        setMessage("The passkey was not removed. Try again.");
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <section data-testid="account-passkeys">
      <h2>Passkeys</h2>
      <Switch>
        <Match when={passkeys() === undefined}>
          <p class="muted">Reading your passkeys…</p>
        </Match>
        <Match when={passkeys()?.length === 0}>
          <p class="muted" data-testid="passkeys-none">
            Your account has no passkey.{" "}
            <A href="/profile" data-testid="passkeys-add">
              Add one on your profile
            </A>
            .
          </p>
        </Match>
        <Match when={passkeys()}>
          {(list) => (
            <ul class="sessions" data-testid="passkeys-list">
              <For each={list()}>
                {(passkey) => (
                  <li
                    class="row"
                    data-testid="passkey-row"
                    data-credential-id={passkey.credentialID}
                  >
                    <div class="details">
                      <strong data-testid="passkey-label">{labelOf(passkey)}</strong>
                      <br />
                      <span class="muted" data-testid="passkey-details">
                        {passkey.backedUp ? "Synced to your other devices" : "On one device"}
                        <Show when={passkey.transports.length > 0}>
                          {" "}
                          · {passkey.transports.join(", ")}
                        </Show>
                      </span>
                    </div>
                    <button
                      type="button"
                      class="secondary"
                      disabled={busy()}
                      data-testid="passkey-remove"
                      onClick={() => remove(passkey)}
                    >
                      Remove
                    </button>
                  </li>
                )}
              </For>
            </ul>
          )}
        </Match>
      </Switch>
      <p class="muted" role="status" data-testid="passkeys-message">
        {message()}
        <Show when={signInUrl()}>
          {(url) => (
            <>
              {" "}
              {/* The auth route's sign-in page: loaded by the browser, not the router. */}
              <a href={url()} rel="external" data-testid="passkeys-sign-in-again">
                Sign in again
              </a>
            </>
          )}
        </Show>
      </p>
    </section>
  );
}

/**
 * The signed-in user's account: change the address with `changeEmail()` (`POST
 * /api/auth/change-email/password` with the CSRF token). Nothing changes yet: a link goes to the
 * new address, and the address changes when it is opened and confirmed there; then every browser
 * signed in to the account is signed out, and the old address is told. An account with a
 * password gives it; one without needs a sign-in from the last ten minutes. The "Password" page
 * (./password.tsx) sets or removes the account's password; the passkeys are listed, each with
 * "Remove"; the auth route's built-in page `/api/auth/two-factor` sets up and turns off
 * two-factor sign-in.
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
              <Passkeys />
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
