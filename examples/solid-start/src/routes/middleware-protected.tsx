import { createSession } from "@gatehousejs/solid-start/client";
import { Show } from "solid-js";

/**
 * No server data here: `src/middleware.ts` redirects a request without a session to `/` before
 * this page renders, and the page reads the session in the browser.
 */
export default function MiddlewareProtected() {
  const auth = createSession();
  return (
    <section class="card" data-testid="middleware-content">
      <h1>Middleware-protected page</h1>
      <p>
        <code>authMiddleware()</code> let this request through because it carried a session.
      </p>
      <Show when={auth.session()?.user} fallback={<p class="muted">Reading the session…</p>}>
        {(user) => (
          <p>
            In the browser, <code>createSession()</code> says you are{" "}
            <strong data-testid="middleware-name">
              {user().name || user().email || "a passkey user"}
            </strong>
            .
          </p>
        )}
      </Show>
    </section>
  );
}
