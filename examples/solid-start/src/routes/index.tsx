import { signIn } from "@gatehousejs/solid-start/client";
import { A, createAsync } from "@solidjs/router";
import { createSignal, Show } from "solid-js";
import SignInLink from "~/components/SignInLink";
import SignOutButton from "~/components/SignOutButton";
import When from "~/components/When";
import { demoQuery, sessionQuery } from "~/lib/session";

/** "5 minutes" for 300 seconds, "1 minute" for 60, "30 seconds" for 30. */
function duration(seconds: number): string {
  const [value, unit] = seconds % 60 === 0 ? [seconds / 60, "minute"] : [seconds, "second"];
  return `${value} ${unit}${value === 1 ? "" : "s"}`;
}

export default function Home() {
  const data = createAsync(() => sessionQuery(), { deferStream: true });
  const demo = createAsync(() => demoQuery());
  const [passkeyError, setPasskeyError] = createSignal("");

  // The browser's passkey prompt right here, without the sign-in page: `signIn("passkey")`.
  async function signInWithPasskey() {
    setPasskeyError("");
    try {
      const result = await signIn("passkey", { redirectTo: "/" });
      if (result && !result.ok) setPasskeyError("That passkey did not sign you in.");
    } catch {
      setPasskeyError("No passkey was used.");
    }
  }
  return (
    <>
      <h1>Gatehouse × SolidStart</h1>
      <section class="card" data-testid="session-card">
        <Show
          when={data()}
          fallback={
            <>
              <p data-testid="session-status">You are not signed in.</p>
              <div class="actions">
                <SignInLink testId="sign-in-link" />
                {/* The built-in sign-up page, a server route: loaded by the browser, not the router. */}
                <a
                  class="button secondary"
                  href="/api/auth/signup/password?callbackUrl=%2F"
                  rel="external"
                  data-testid="home-sign-up"
                >
                  Create an account
                </a>
                <button
                  type="button"
                  class="secondary"
                  data-testid="passkey-sign-in"
                  onClick={signInWithPasskey}
                >
                  Sign in with a passkey
                </button>
              </div>
              <Show when={passkeyError()}>
                <p class="muted" role="alert" data-testid="passkey-sign-in-error">
                  {passkeyError()}
                </p>
              </Show>
            </>
          }
        >
          {(signedIn) => (
            <>
              <p data-testid="session-status">
                Signed in as{" "}
                <strong data-testid="session-name">
                  {signedIn().session.user?.name ||
                    signedIn().session.user?.email ||
                    "a passkey user"}
                </strong>
                <Show when={signedIn().session.user?.email}>
                  {(email) => (
                    <>
                      {" "}
                      (<span data-testid="session-email">{email()}</span>)
                    </>
                  )}
                </Show>
                <Show when={signedIn().signedInWith}>
                  {(method) => (
                    <>
                      {" "}
                      with <span data-testid="session-method">{method()}</span>
                    </>
                  )}
                </Show>
              </p>
              <p class="muted">
                The session expires on <When at={signedIn().session.expires} />.
              </p>
              <div class="actions">
                <SignOutButton />
                <Show when={signedIn().federated}>
                  <SignOutButton federated />
                </Show>
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
              account of your own ("Create an account": its confirmation link arrives in the
              mailbox), with an email link (read it in the{" "}
              <A href="/dev/mailbox" data-testid="demo-mailbox-link">
                mailbox
              </A>
              ), through the local OpenID provider, or with a passkey.
            </p>
            <p data-testid="demo-limits">
              Rate limits, counted per browser address (here, yours on this machine): after{" "}
              {account().limits.credentials.failures.freeAttempts} wrong passwords for one account,
              each further try waits {duration(account().limits.credentials.failures.baseSeconds)},
              then twice as long each time, up to{" "}
              {duration(account().limits.credentials.failures.maxSeconds)}; at most{" "}
              {account().limits.credentials.perClient.max} password sign-ins per{" "}
              {duration(account().limits.credentials.perClient.windowSeconds)};{" "}
              {account().limits.email.perAddress.max} sign-in emails to one address and{" "}
              {account().limits.email.perClient.max} from one browser per{" "}
              {duration(account().limits.email.perClient.windowSeconds)};{" "}
              {account().limits.webauthn.perClient.max} passkey and{" "}
              {account().limits.oauth.perClient.max} OpenID sign-ins per{" "}
              {duration(account().limits.oauth.perClient.windowSeconds)}.
            </p>
          </section>
        )}
      </Show>
      <section class="card">
        <h2>Pages</h2>
        <ul>
          <li>
            <A href="/protected" data-testid="home-protected">
              SSR-protected
            </A>
            : checked on the server by the page's query; signs out with a plain form.
          </li>
          <li>
            <A href="/middleware-protected" rel="external" data-testid="home-middleware-protected">
              Middleware-protected
            </A>
            : checked by <code>src/middleware.ts</code> before anything renders (so its links load
            the page from the server).
          </li>
          <li>
            <A href="/profile" data-testid="home-profile">
              Profile
            </A>
            : change your display name in the session, add a passkey.
          </li>
          <li>
            <A href="/change-password" data-testid="home-change-password">
              Change password
            </A>
            : for an account made with "Create an account", with <code>changePassword()</code>:
            every other browser signed in to it is signed out.
          </li>
          <li>
            <A href="/account" data-testid="home-account">
              Account
            </A>
            : change your email address with <code>changeEmail()</code>: a link goes to the new
            address, and the change is made when it is confirmed.
          </li>
          <li>
            <A href="/sessions" data-testid="home-sessions">
              Your sessions
            </A>
            : every browser signed in to your account; end the ones you do not recognise.
          </li>
          <li>
            <A href="/activity" data-testid="home-activity">
              Recent security activity
            </A>
            : sign-ins, failed attempts, sign-outs and ended sessions.
          </li>
          <li>
            <A href="/provider-token" data-testid="home-provider-token">
              Provider token
            </A>
            : the OpenID provider's userinfo, called on the server with{" "}
            <code>getAccessToken()</code> (renewed when it expires).
          </li>
        </ul>
      </section>
    </>
  );
}
