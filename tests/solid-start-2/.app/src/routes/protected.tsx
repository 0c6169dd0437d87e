import { createAsync, type RouteDefinition } from "@solidjs/router";
import { Show } from "solid-js";
import { protectedQuery } from "~/lib/session";

export const route = { preload: () => protectedQuery() } satisfies RouteDefinition;

/** Rendered only for a signed-in user: the query redirects everyone else to `/`. */
export default function Protected() {
  const data = createAsync(() => protectedQuery(), { deferStream: true });
  return (
    <Show when={data()}>
      {(info) => (
        <section>
          <h1>SSR-protected</h1>
          <p data-testid="protected-user">
            {info().name} ({info().email})
          </p>
        </section>
      )}
    </Show>
  );
}
