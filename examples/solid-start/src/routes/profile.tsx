import { createSession, registerPasskey } from "@gatehousejs/solid-start/client";
import { revalidate } from "@solidjs/router";
import { createSignal, Match, Switch } from "solid-js";
import SignInLink from "~/components/SignInLink";
import { sessionQuery } from "~/lib/session";

/**
 * Updates the session from the browser (`update({ name })` is `POST /api/auth/session`), and
 * adds a passkey to the account (`registerPasskey()`: the browser's prompt, then
 * `POST /api/auth/callback/passkey`).
 */
export default function Profile() {
  const auth = createSession();
  const [saving, setSaving] = createSignal(false);
  const [message, setMessage] = createSignal("");
  const [passkeyMessage, setPasskeyMessage] = createSignal("");
  const [adding, setAdding] = createSignal(false);

  async function addPasskey() {
    setAdding(true);
    setPasskeyMessage("");
    try {
      const result = await registerPasskey({ redirect: false });
      // Adding a passkey signs in anew: the session the server-rendered pages read changed.
      if (result.ok) await revalidate(sessionQuery.key);
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

  async function save(event: SubmitEvent) {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const name = String(new FormData(form).get("name") ?? "").trim();
    if (!name) return;
    setSaving(true);
    try {
      const updated = await auth.update({ name });
      setMessage(updated ? "Saved in your session." : "The session could not be updated.");
      // The pages that read the session on the server show the new name from now on.
      if (updated) await revalidate(sessionQuery.key);
    } finally {
      setSaving(false);
    }
  }

  return (
    <section class="card">
      <h1>Profile</h1>
      <Switch>
        <Match when={auth.status() === "loading"}>
          <p class="muted">Reading the session…</p>
        </Match>
        <Match when={auth.status() === "unauthenticated"}>
          <p data-testid="profile-signed-out">
            You are not signed in. <SignInLink testId="profile-sign-in" />
          </p>
        </Match>
        <Match when={auth.session()?.user}>
          {(user) => (
            <>
              <p>
                Your name in the session:{" "}
                <strong data-testid="profile-name">{user().name ?? "(none)"}</strong>
              </p>
              <form onSubmit={save}>
                <label>
                  New name{" "}
                  <input name="name" maxLength={80} required data-testid="profile-name-input" />
                </label>{" "}
                <button type="submit" disabled={saving()} data-testid="profile-save">
                  Update the session
                </button>
              </form>
              <p class="muted" data-testid="profile-message">
                {message()}
              </p>
              <h2>Passkeys</h2>
              <p>
                Sign in with your fingerprint, face or device PIN instead of a password: add a
                passkey to this account.
              </p>
              <button
                type="button"
                disabled={adding()}
                data-testid="passkey-add"
                onClick={addPasskey}
              >
                Add a passkey
              </button>
              <p class="muted" data-testid="passkey-message">
                {passkeyMessage()}
              </p>
            </>
          )}
        </Match>
      </Switch>
    </section>
  );
}
