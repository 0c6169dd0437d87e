import Link from "next/link";

/**
 * "You are not signed in" with a link to the app's sign-in page, which comes back to `page`.
 */
export function SignedOut({ page, testId }: { page: string; testId: string }) {
  return (
    <p data-testid={`${testId}-signed-out`}>
      You are not signed in.{" "}
      <Link
        className="button"
        href={`/login?${new URLSearchParams({ callbackUrl: page })}`}
        data-testid={`${testId}-sign-in`}
      >
        Sign in
      </Link>
    </p>
  );
}
