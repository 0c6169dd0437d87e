import { ClientSession } from "./client-session";

/**
 * Protected by the proxy: `protect: ["/protected"]` in auth.ts, checked in proxy.ts before this
 * page renders. A signed-out visitor never gets here: the proxy sends them to the sign-in page,
 * which brings them back. The page reads the session in the browser with `useSession()`.
 */
export default function Protected() {
  return (
    <section className="card" data-testid="protected-content">
      <h1>Protected by the proxy</h1>
      <p>
        <code>proxy.ts</code> let this request through because it carried a verified session.
      </p>
      <ClientSession />
    </section>
  );
}
