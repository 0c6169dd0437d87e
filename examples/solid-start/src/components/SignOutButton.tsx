import { signOut } from "@gatehousejs/solid-start/client";

/**
 * Ends the session (POST /api/auth/signout) and comes back to the home page. `federated`: signs
 * out of the identity provider too (its end-session page, then back here); the home page offers
 * it only for a session that signed in through an OpenID provider.
 */
export default function SignOutButton(props: { federated?: boolean }) {
  return (
    <button
      type="button"
      class="secondary"
      data-testid={props.federated ? "sign-out-federated" : "sign-out"}
      onClick={() => signOut({ redirectTo: "/", federated: props.federated })}
    >
      {props.federated ? "Sign out of the identity provider too" : "Sign out"}
    </button>
  );
}
