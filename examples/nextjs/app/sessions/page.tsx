import { providerNames } from "@/auth";
import { SessionList } from "./session-list";

/**
 * "Your sessions": the list is read in the browser (always fresh) with the client kit; the
 * server gives it the sign-in methods' names.
 */
export default function Sessions() {
  return (
    <section className="card">
      <h1>Your sessions</h1>
      <SessionList names={providerNames()} />
    </section>
  );
}
