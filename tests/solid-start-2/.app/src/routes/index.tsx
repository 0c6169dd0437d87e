import { createAsync } from "@solidjs/router";
import { Show } from "solid-js";
import { sessionQuery } from "~/lib/session";

/** The session as getSession() reads it on the server. */
export default function Home() {
  const session = createAsync(() => sessionQuery(), { deferStream: true });
  return (
    <section>
      <h1>Home</h1>
      <Show when={session()?.user} fallback={<p data-testid="signed-out">Signed out</p>}>
        {(user) => <p data-testid="signed-in">Signed in as {user().name}</p>}
      </Show>
    </section>
  );
}
