import { HttpStatusCode } from "@solidjs/start";

export default function NotFound() {
  return (
    <p>
      <HttpStatusCode code={404} />
      NOT-FOUND-PAGE
    </p>
  );
}
