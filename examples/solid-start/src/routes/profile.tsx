import { createSession } from "@gatehousejs/solid-start/client";
import { createSignal, Match, Switch } from "solid-js";

/** Updates the session from the browser: `update({ name })` is `POST /api/auth/session`. */
export default function Profile() {
  const auth = createSession();
  const [saving, setSaving] = createSignal(false);
  const [message, setMessage] = createSignal("");

  async function save(event: SubmitEvent) {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const name = String(new FormData(form).get("name") ?? "").trim();
    if (!name) return;
    setSaving(true);
    try {
      const updated = await auth.update({ name });
      setMessage(updated ? "Saved in your session." : "The session could not be updated.");
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
            You are not signed in. <a href="/api/auth/signin">Sign in</a> first.
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
            </>
          )}
        </Match>
      </Switch>
    </section>
  );
}
