import { auth } from "../../../auth";

/**
 * Times `await auth()` in this process: `?n=` calls in a row (default 1), each timed alone with
 * performance.now(); answers the times in ms and the session's email, so the bench can check that
 * every call saw the session.
 */
export async function GET(request: Request) {
  const n = Math.max(1, Math.min(1000, Number(new URL(request.url).searchParams.get("n") ?? 1)));
  const ms: number[] = [];
  let email: string | null = null;
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    const session = await auth();
    ms.push(performance.now() - start);
    const seen = session?.user?.email ?? null;
    if (i > 0 && seen !== email) email = null;
    else email = seen;
  }
  return Response.json({ ms, email });
}
