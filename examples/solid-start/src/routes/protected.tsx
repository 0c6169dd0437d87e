import { createAsync } from "@solidjs/router";
import { Show } from "solid-js";
import { protectedQuery } from "~/lib/session";

/** Rendered on the server only for a signed-in user: the query redirects everyone else to `/`. */
export default function Protected() {
  const data = createAsync(() => protectedQuery(), { deferStream: true });
  return (
    <Show when={data()}>
      {(info) => (
        <section class="card" data-testid="protected-content">
          <h1>SSR-protected page</h1>
          <p>
            This page's query called <code>requireSession()</code> on the server: you are{" "}
            <strong data-testid="protected-name">
              {info().name || info().email || "a passkey user"}
            </strong>
            .
          </p>
          <p class="muted">Rendered at {info().renderedAt}.</p>
        </section>
      )}
    </Show>
  );
}
