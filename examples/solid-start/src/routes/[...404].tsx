import { HttpStatusCode } from "@solidjs/start";

export default function NotFound() {
  return (
    <section class="card">
      <HttpStatusCode code={404} />
      <h1>Not found</h1>
      <p>
        <a href="/" data-testid="not-found-home">
          Back home
        </a>
      </p>
    </section>
  );
}
