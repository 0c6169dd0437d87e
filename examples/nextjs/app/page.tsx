import Link from "next/link";
import { auth } from "@/auth";
import { FederatedSignOutButton } from "@/components/FederatedSignOutButton";
import { PasskeySignIn } from "@/components/PasskeySignIn";
import { SignOutButton } from "@/components/SignOutButton";
import { When } from "@/components/When";
import { DEMO_USER } from "@/lib/db";
import { isDemo } from "@/lib/env";
import { signedInWith } from "@/lib/session-info";

/**
 * The home page, a Server Component: the session from `auth()` and how it signed in (its record
 * in the sessions list), and every page of the demo.
 */
export default async function Home() {
  const session = await auth();
  const user = session?.user;
  const how = user ? await signedInWith("/") : null;
  return (
    <>
      <h1>Gatehouse × Next.js</h1>
      <section className="card" data-testid="session-card">
        {user ? (
          <>
            <p data-testid="session-status">
              Signed in as{" "}
              <strong data-testid="session-name">
                {user.name || user.email || "a passkey user"}
              </strong>
              {user.email ? (
                <>
                  {" "}
                  (<span data-testid="session-email">{user.email}</span>)
                </>
              ) : null}
              {how?.method ? (
                <>
                  {" "}
                  with <span data-testid="session-method">{how.method}</span>
                </>
              ) : null}
            </p>
            {session.expires ? (
              <p className="muted">
                The session expires on <When at={session.expires} />.
              </p>
            ) : null}
            <div className="actions">
              <SignOutButton />
              {how?.federated ? <FederatedSignOutButton /> : null}
            </div>
          </>
        ) : (
          <>
            <p data-testid="session-status">You are not signed in.</p>
            <div className="actions">
              <Link className="button" href="/login" data-testid="sign-in-link">
                Sign in
              </Link>
              {/* The built-in sign-up page of the auth route: a plain link loads it. */}
              <a
                className="button secondary"
                href="/api/auth/signup/password?callbackUrl=%2F"
                data-testid="home-sign-up"
              >
                Create an account
              </a>
              <PasskeySignIn />
            </div>
          </>
        )}
      </section>
      {isDemo() ? (
        <section className="card" data-testid="demo-hint">
          <h2>Demo mode</h2>
          <p>
            Sign in with the demo account <code data-testid="demo-email">{DEMO_USER.email}</code>{" "}
            and password <code data-testid="demo-password">{DEMO_USER.password}</code>, with an
            account of your own ("Create an account": its confirmation link arrives in the mailbox),
            with an email link or code (read it in the{" "}
            <Link href="/dev/mailbox" data-testid="demo-mailbox-link">
              mailbox
            </Link>
            ), through the local OpenID provider, or with a passkey.
          </p>
        </section>
      ) : null}
      <section className="card">
        <h2>Pages</h2>
        <ul>
          <li>
            {/* Prefetched too: signed out, the proxy answers a prefetch with an empty 204. */}
            <Link href="/protected" data-testid="home-protected">
              Protected by the proxy
            </Link>
            : <code>proxy.ts</code> checks the session before the page renders.
          </li>
          <li>
            <Link href="/server" data-testid="home-server">
              Server Component
            </Link>
            : the page itself calls <code>auth()</code> on the server.
          </li>
          <li>
            <Link href="/profile" data-testid="home-profile">
              Profile
            </Link>
            : change your display name in the session, add a passkey.
          </li>
          <li>
            <Link href="/account" data-testid="home-account">
              Account
            </Link>
            : change your email address, set or remove a password.
          </li>
          <li>
            <Link href="/change-password" data-testid="home-change-password">
              Change password
            </Link>
            : for an account made with "Create an account"; every other browser signed in to it is
            signed out.
          </li>
          <li>
            <Link href="/two-factor" data-testid="home-two-factor">
              Two-factor sign-in
            </Link>
            : an authenticator app's codes after the password, backup codes, trusted browsers.
          </li>
          <li>
            <Link href="/sessions" data-testid="home-sessions">
              Your sessions
            </Link>
            : every browser signed in to your account; end the ones you do not recognise.
          </li>
          <li>
            <Link href="/activity" data-testid="home-activity">
              Recent security activity
            </Link>
            : sign-ins, failed attempts, sign-outs and ended sessions.
          </li>
          <li>
            <Link href="/provider-token" data-testid="home-provider-token">
              Provider token
            </Link>
            : the OpenID provider's userinfo, called on the server with{" "}
            <code>getAccessToken()</code> (renewed when it expires).
          </li>
        </ul>
      </section>
    </>
  );
}
