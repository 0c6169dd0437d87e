import { signIn } from "@gatehousejs/solid-start/client";
import { createSignal, Show } from "solid-js";

/** A sign-in form on the browser client of @gatehousejs/solid-start. */
export default function SignIn() {
  const [error, setError] = createSignal<string>();
  async function submit(event: SubmitEvent) {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const result = await signIn("credentials", {
      email: String(form.get("email")),
      password: String(form.get("password")),
      redirect: false,
    });
    if (result.ok) location.assign("/protected");
    else setError(result.error ?? "error");
  }
  return (
    <form onSubmit={submit}>
      <input name="email" type="email" aria-label="Email" />
      <input name="password" type="password" aria-label="Password" />
      <button type="submit">Sign in</button>
      <Show when={error()}>{(message) => <p role="alert">{message()}</p>}</Show>
    </form>
  );
}
