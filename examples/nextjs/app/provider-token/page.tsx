import { redirect } from "next/navigation";
import { signInWithOidc } from "@/app/actions";
import { auth } from "@/auth";
import { When } from "@/components/When";
import { readProviderUserinfo } from "@/lib/provider-token";

/**
 * "Provider token", a Server Component: the OpenID provider's userinfo for the signed-in user,
 * fetched on the server with the access token `getAccessToken()` returns (renewed with the
 * refresh token when it is about to expire). Signed out: the app's sign-in page, then back here.
 */
export default async function ProviderToken() {
  const session = await auth();
  if (!session?.user) redirect("/login?callbackUrl=%2Fprovider-token");
  const result = await readProviderUserinfo();
  return (
    <section className="card">
      <h1>Provider token</h1>
      {result.status === "unconfigured" ? (
        <p data-testid="provider-token-unconfigured">
          No OpenID provider is configured (set <code>AUTH_OIDC_ISSUER</code>, or run the demo).
        </p>
      ) : null}
      {result.status === "signInAgain" ? (
        <form action={signInWithOidc} data-testid="provider-token-sign-in">
          <input type="hidden" name="callbackUrl" value="/provider-token" />
          <p>
            {result.reason === "refreshFailed"
              ? "The provider no longer accepts this sign-in. "
              : "You did not sign in through the OpenID provider. "}
            <button type="submit" data-testid="provider-token-sign-in-oidc">
              Sign in with it
            </button>{" "}
            to see its answer here.
          </p>
        </form>
      ) : null}
      {result.status === "userinfoFailed" ? (
        <p data-testid="provider-token-error">
          The provider refused the token (HTTP {result.httpStatus}).
        </p>
      ) : null}
      {result.status === "ok" ? (
        <>
          <p className="muted">
            A {result.tokenType} access token
            {result.expiresAt ? (
              <>
                , valid until <When at={result.expiresAt} />
              </>
            ) : null}
            , sent from the server to the provider's userinfo endpoint, which answered:
          </p>
          <pre data-testid="provider-userinfo" data-expires-at={result.expiresAt ?? ""}>
            {JSON.stringify(result.userinfo, null, 2)}
          </pre>
        </>
      ) : null}
    </section>
  );
}
