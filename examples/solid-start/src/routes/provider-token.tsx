import { signIn } from "@gatehousejs/solid-start/client";
import { createAsync } from "@solidjs/router";
import { Match, Show, Switch } from "solid-js";
import When from "~/components/When";
import { type ProviderTokenResult, providerTokenQuery } from "~/lib/session";

type Of<S extends ProviderTokenResult["status"]> = Extract<ProviderTokenResult, { status: S }>;

/**
 * "Provider token": the local OpenID provider's userinfo for the signed-in user, fetched on the
 * server with the access token `getAccessToken()` returns (renewed with the refresh token when it
 * is about to expire). Signed out, the query sends the visitor to the sign-in page and back.
 */
export default function ProviderToken() {
  const data = createAsync(() => providerTokenQuery(), { deferStream: true });
  const when = <S extends ProviderTokenResult["status"]>(status: S): Of<S> | undefined => {
    const result = data();
    return result?.status === status ? (result as Of<S>) : undefined;
  };
  return (
    <section class="card">
      <h1>Provider token</h1>
      <Switch>
        <Match when={when("unconfigured")}>
          <p data-testid="provider-token-unconfigured">
            No OpenID provider is configured (set <code>AUTH_OIDC_ISSUER</code>, or run the demo).
          </p>
        </Match>
        <Match when={when("signInAgain")}>
          {(result) => (
            <p data-testid="provider-token-sign-in">
              {result().reason === "refreshFailed"
                ? "The provider no longer accepts this sign-in. "
                : "You did not sign in through the OpenID provider. "}
              <button
                type="button"
                data-testid="provider-token-sign-in-oidc"
                onClick={() => signIn("oidc", { redirectTo: "/provider-token" })}
              >
                Sign in with it
              </button>{" "}
              to see its answer here.
            </p>
          )}
        </Match>
        <Match when={when("userinfoFailed")}>
          {(result) => (
            <p data-testid="provider-token-error">
              The provider refused the token (HTTP {result().httpStatus}).
            </p>
          )}
        </Match>
        <Match when={when("ok")}>
          {(ok) => (
            <>
              <p class="muted">
                A {ok().tokenType} access token
                <Show when={ok().expiresAt}>
                  {(at) => (
                    <>
                      , valid until <When at={at()} />
                    </>
                  )}
                </Show>
                , sent from the server to the provider's userinfo endpoint, which answered:
              </p>
              <pre data-testid="provider-userinfo" data-expires-at={ok().expiresAt ?? ""}>
                {JSON.stringify(ok().userinfo, null, 2)}
              </pre>
            </>
          )}
        </Match>
      </Switch>
    </section>
  );
}
