import { createAsync } from "@solidjs/router";
import { Show } from "solid-js";
import SignOutButton from "~/components/SignOutButton";
import { demoQuery, sessionQuery } from "~/lib/session";

export default function Home() {
  const session = createAsync(() => sessionQuery(), { deferStream: true });
  const demo = createAsync(() => demoQuery());
  return (
    <>
      <h1>Gatehouse × SolidStart</h1>
      <section class="card" data-testid="session-card">
        <Show
          when={session()?.user}
          fallback={
            <>
              <p data-testid="session-status">You are not signed in.</p>
              <a class="button" href="/api/auth/signin" data-testid="sign-in-link">
                Sign in
              </a>
            </>
          }
        >
          {(user) => (
            <>
              <p data-testid="session-status">
                Signed in as{" "}
                <strong data-testid="session-name">
                  {user().name || user().email || "a passkey user"}
                </strong>
                <Show when={user().email}>
                  {" "}
                  (<span data-testid="session-email">{user().email}</span>)
                </Show>
              </p>
              <p class="muted">
                The session expires on {new Date(session()!.expires).toUTCString()}.
              </p>
              <div class="actions">
                <SignOutButton />
                <SignOutButton federated />
              </div>
            </>
          )}
        </Show>
      </section>
      <Show when={demo()}>
        {(account) => (
          <section class="card" data-testid="demo-hint">
            <h2>Demo mode</h2>
            <p>
              Sign in with the demo account <code data-testid="demo-email">{account().email}</code>{" "}
              and password <code data-testid="demo-password">{account().password}</code>, with an
              email link (read it in the <a href="/dev/mailbox">mailbox</a>), through the local
              OpenID provider, or with a passkey.
            </p>
          </section>
        )}
      </Show>
      <section class="card">
        <h2>Pages</h2>
        <ul>
          <li>
            <a href="/protected">SSR-protected</a>: checked on the server by the page's query.
          </li>
          <li>
            <a href="/middleware-protected">Middleware-protected</a>: checked by{" "}
            <code>src/middleware.ts</code> before anything renders.
          </li>
          <li>
            <a href="/profile">Profile</a>: change your display name in the session.
          </li>
          <li>
            <a href="/provider-token">Provider token</a>: the OpenID provider's userinfo, called on
            the server with <code>getAccessToken()</code> (renewed when it expires).
          </li>
        </ul>
      </section>
    </>
  );
}
