import { createSession } from "@gatehousejs/solid-start/client";
import { Match, Switch } from "solid-js";
import SignInLink from "~/components/SignInLink";

/**
 * No server data here: `src/middleware.ts` sends a request without a session to the sign-in page
 * before this page renders, and the page reads the session in the browser. The middleware sees
 * only requests to the server, so the app's links here load the page from the server; reached
 * some other way without a session, the page offers to sign in.
 */
export default function MiddlewareProtected() {
  const auth = createSession();
  return (
    <section class="card" data-testid="middleware-content">
      <h1>Middleware-protected page</h1>
      <p>
        <code>authMiddleware()</code> let this request through because it carried a session.
      </p>
      <Switch fallback={<p class="muted">Reading the session…</p>}>
        <Match when={auth.status() === "unauthenticated"}>
          <p>
            You are not signed in. <SignInLink testId="middleware-sign-in" />
          </p>
        </Match>
        <Match when={auth.session()?.user}>
          {(user) => (
            <p>
              In the browser, <code>createSession()</code> says you are{" "}
              <strong data-testid="middleware-name">
                {user().name || user().email || "a passkey user"}
              </strong>
              .
            </p>
          )}
        </Match>
      </Switch>
    </section>
  );
}
