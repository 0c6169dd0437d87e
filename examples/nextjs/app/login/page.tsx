import { auth } from "@/auth";
import { PasskeySignIn } from "@/components/PasskeySignIn";
import {
  signInWithEmail,
  signInWithOidc,
  signInWithPassword,
  signInWithPasswordAccount,
} from "../actions";

const ERRORS: Record<string, string> = {
  CredentialsSignin: "Wrong email or password.",
  EmailNotVerified: "Confirm your address first: open the link we emailed you.",
  RateLimited: "Too many attempts. Wait a little and try again.",
};

/** Only a path of this site is a place to come back to. */
function sitePath(value: unknown): string {
  return typeof value === "string" && value.startsWith("/") && !value.startsWith("//")
    ? value
    : "/";
}

/**
 * The app's own sign-in page: each form posts to a Server Action (app/actions.ts) that calls
 * `signIn()` of auth.ts. The built-in page under /api/auth/signin offers the same methods.
 */
export default async function Login({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const callbackUrl = sitePath(params.callbackUrl);
  const error = typeof params.error === "string" ? params.error : null;
  const session = await auth();
  const oidc = process.env.AUTH_OIDC_ISSUER
    ? (process.env.AUTH_OIDC_NAME ?? "OpenID Connect")
    : null;
  return (
    <>
      <h1>Sign in</h1>
      {session?.user ? (
        <p className="muted" data-testid="login-already">
          You are signed in as {session.user.name || session.user.email || "a passkey user"}.
          Signing in again replaces that session.
        </p>
      ) : null}
      {error ? (
        <p className="error" role="alert" data-testid="login-error">
          {ERRORS[error] ?? "Signing in did not work. Try again."}
        </p>
      ) : null}
      <section className="card">
        <h2>Email and password</h2>
        <form className="stack" action={signInWithPassword}>
          <input type="hidden" name="callbackUrl" value={callbackUrl} />
          <label>
            Email
            <input
              name="email"
              type="email"
              autoComplete="username"
              required
              data-testid="login-email"
            />
          </label>
          <label>
            Password
            <input
              name="password"
              type="password"
              autoComplete="current-password"
              required
              data-testid="login-password"
            />
          </label>
          <button type="submit" data-testid="login-password-submit">
            Sign in with password
          </button>
        </form>
      </section>
      <section className="card">
        <h2>An account you created</h2>
        <form className="stack" action={signInWithPasswordAccount}>
          <input type="hidden" name="callbackUrl" value={callbackUrl} />
          <label>
            Email
            <input
              name="email"
              type="email"
              autoComplete="username"
              required
              data-testid="login-account-email"
            />
          </label>
          <label>
            Password
            <input
              name="password"
              type="password"
              autoComplete="current-password"
              required
              data-testid="login-account-password"
            />
          </label>
          <button type="submit" data-testid="login-account-submit">
            Sign in to your account
          </button>
        </form>
        <p>
          {/* The auth route's built-in pages: plain links load them from the server. */}
          <a
            href={`/api/auth/signup/password?${new URLSearchParams({ callbackUrl })}`}
            data-testid="login-sign-up"
          >
            Create an account
          </a>{" "}
          ·{" "}
          <a
            href={`/api/auth/forgot-password/password?${new URLSearchParams({ callbackUrl })}`}
            data-testid="login-forgot-password"
          >
            Forgot your password?
          </a>
        </p>
      </section>
      <section className="card">
        <h2>Email link or code</h2>
        <form className="stack" action={signInWithEmail}>
          <input type="hidden" name="callbackUrl" value={callbackUrl} />
          <label>
            Email
            <input
              name="email"
              type="email"
              autoComplete="email"
              required
              data-testid="login-link-email"
            />
          </label>
          <button type="submit" data-testid="login-link-submit">
            Email me a link and a code
          </button>
        </form>
      </section>
      <section className="card">
        <h2>Other ways</h2>
        <div className="actions">
          {oidc ? (
            <form action={signInWithOidc}>
              <input type="hidden" name="callbackUrl" value={callbackUrl} />
              <button type="submit" data-testid="login-oidc">
                Sign in with {oidc}
              </button>
            </form>
          ) : null}
          <PasskeySignIn redirectTo={callbackUrl} />
        </div>
        <p>
          {/* A route handler's page, not the app's: a plain link loads it from the server. */}
          <a
            href={`/api/auth/signin?${new URLSearchParams({ callbackUrl })}`}
            data-testid="login-built-in"
          >
            The built-in sign-in page
          </a>{" "}
          offers the same methods, and "Create a passkey" for a new account.
        </p>
      </section>
    </>
  );
}
