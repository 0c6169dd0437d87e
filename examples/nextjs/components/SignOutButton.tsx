import { signOutAction } from "@/app/actions";

/** "Sign out": a form posting to a Server Action; it works before, or without, JavaScript. */
export function SignOutButton({ testId = "sign-out" }: { testId?: string }) {
  return (
    <form action={signOutAction}>
      <button type="submit" className="secondary" data-testid={testId}>
        Sign out
      </button>
    </form>
  );
}
