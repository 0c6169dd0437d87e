import { cookies, headers } from "next/headers";
import { auth } from "../../../auth";

/** What `?what=cookies` times instead of auth(): reading the session cookie through Next alone. */
async function readCookie() {
  return { user: { email: (await cookies()).get("authjs.session-token") ? "cookie" : null } };
}

/** What `?what=headers` times: reading the Cookie header through Next's `headers()` alone. */
async function readHeader() {
  return { user: { email: (await headers()).get("cookie") ? "cookie" : null } };
}

/** What `?what=none` times: nothing, the cost of the measurement itself. */
async function nothing() {
  return { user: { email: "none" } };
}

/**
 * Times `await auth()` in this process: `?n=` calls in a row (default 1), each timed alone with
 * performance.now(), and with the process's CPU time over the call (all its threads, in µs: a
 * figure that load from outside the server moves less). Answers both, and the email of the
 * session every call saw (null if any saw none or another). `?what=cookies` times reading the
 * cookie with Next's `cookies()` instead: the floor under any auth() (its "email" is "cookie"
 * when the cookie is there); `?what=headers` the same through `headers()`, which both
 * libraries' auth() reads; `?what=none` times nothing, what the measurement itself costs.
 */
export async function GET(request: Request) {
  const params = new URL(request.url).searchParams;
  const n = Math.max(1, Math.min(1000, Number(params.get("n") ?? 1)));
  const what = params.get("what");
  const read =
    what === "cookies"
      ? readCookie
      : what === "headers"
        ? readHeader
        : what === "none"
          ? nothing
          : auth;
  const ms: number[] = [];
  const cpuUs: number[] = [];
  const seen = new Set<string | null>();
  for (let i = 0; i < n; i++) {
    const cpu = process.cpuUsage();
    const start = performance.now();
    const session = await read();
    ms.push(performance.now() - start);
    const used = process.cpuUsage(cpu);
    cpuUs.push(used.user + used.system);
    seen.add(session?.user?.email ?? null);
  }
  return Response.json({ ms, cpuUs, email: seen.size === 1 ? [...seen][0] : null });
}
