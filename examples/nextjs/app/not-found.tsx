import Link from "next/link";

/** Any address the app has no page for. */
export default function NotFound() {
  return (
    <section className="card">
      <h1>Page not found</h1>
      <p>There is no page at this address.</p>
      <Link className="button" href="/" data-testid="not-found-home">
        Home
      </Link>
    </section>
  );
}
