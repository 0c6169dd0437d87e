import type { Refusal } from "@/lib/route-answer";

/**
 * What the route said after a form of the page, in a live region; with a "Sign in again" link
 * when the action needs a fresh sign-in. `testId` names the message (`<testId>-message`) and the
 * link (`<testId>-sign-in-again`).
 */
export function Answer({ answer, testId }: { answer: Refusal | null; testId: string }) {
  return (
    <>
      <p className="muted" role="status" data-testid={`${testId}-message`}>
        {answer?.message}
      </p>
      {answer?.signInAgain ? (
        <p>
          {/* The auth route's sign-in page: a plain link loads it from the server. */}
          <a className="button" href={answer.signInAgain} data-testid={`${testId}-sign-in-again`}>
            Sign in again
          </a>
        </p>
      ) : null}
    </>
  );
}
