import { signOut } from "@gatehouse/solid-start/client";

/** Ends the session (POST /api/auth/signout) and comes back to the home page. */
export default function SignOutButton() {
  return (
    <button
      type="button"
      class="secondary"
      data-testid="sign-out"
      onClick={() => signOut({ redirectTo: "/" })}
    >
      Sign out
    </button>
  );
}
