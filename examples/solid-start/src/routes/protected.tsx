import { createAsync } from "@solidjs/router";
import { Show } from "solid-js";
import { protectedQuery } from "~/lib/session";

/**
 * Rendered on the server only for a signed-in user: the query sends everyone else to the sign-in
 * page, which brings them back here. Its sign-out is a plain HTML form (it works before, or
 * without, JavaScript): the CSRF token comes from `getCsrfToken()` in the query.
 */
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
          <Show when={info().csrfToken}>
            {(csrfToken) => (
              <form method="post" action="/api/auth/signout">
                <input type="hidden" name="csrfToken" value={csrfToken()} />
                <input type="hidden" name="callbackUrl" value="/" />
                <button type="submit" class="secondary" data-testid="ssr-sign-out">
                  Sign out (a plain form)
                </button>
              </form>
            )}
          </Show>
        </section>
      )}
    </Show>
  );
}
