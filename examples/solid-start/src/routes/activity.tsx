import { createAsync } from "@solidjs/router";
import { For, Show } from "solid-js";
import When from "~/components/When";
import { securityEventsQuery } from "~/lib/session";

const LABELS: Record<string, string> = {
  signIn: "Signed in",
  signInFailed: "Failed sign-in attempt",
  signOut: "Signed out",
  sessionRevoked: "Session ended",
  accountLinked: "Account linked",
  emailVerified: "Email address verified",
};

/** The log's reason codes, in words; an unknown code is shown as it is. */
const REASONS: Record<string, string> = {
  revokedByUser: "ended from another browser",
  signOutOthers: "signed out everywhere else",
  signOutEverywhere: "signed out everywhere",
  revokedByServer: "ended by the app",
  revokedAllByServer: "all sessions ended by the app",
  CredentialsSignin: "wrong email or password",
  RateLimited: "too many attempts",
};

/**
 * "Recent security activity": the signed-in user's security log, newest first, read on the
 * server by a query that calls `listSecurityEvents()` (signed out, the query sends you to the
 * sign-in page and back). Repeated events (fifty failed attempts) are one line with a count.
 */
export default function Activity() {
  const events = createAsync(() => securityEventsQuery(), { deferStream: true });
  return (
    <section class="card">
      <h1>Recent security activity</h1>
      <Show when={events()}>
        {(list) => (
          <Show
            when={list().length > 0}
            fallback={<p data-testid="activity-empty">Nothing recorded yet.</p>}
          >
            <ul class="sessions" data-testid="activity-list">
              <For each={list()}>
                {(event) => (
                  <li
                    class="row"
                    data-testid="activity-row"
                    data-type={event.type}
                    data-count={event.count}
                  >
                    <div class="details">
                      <strong>{LABELS[event.type] ?? event.type}</strong>
                      <Show when={event.count > 1}>
                        {" "}
                        <span class="count" data-testid="activity-count">
                          × {event.count}
                        </span>
                      </Show>
                      <Show when={event.provider}> with {event.provider}</Show>
                      <Show when={event.newClient}>
                        {" "}
                        <span class="tag">new browser</span>
                      </Show>
                      <br />
                      <span class="muted">
                        <Show when={event.count > 1}>
                          <When at={event.earliest} /> to{" "}
                        </Show>
                        <When at={event.latest} />
                        <Show when={event.client}> · {event.client}</Show>
                        <Show when={event.ip}> · {event.ip}</Show>
                        <Show when={event.reason}>
                          {(reason) => <> · {REASONS[reason()] ?? reason()}</>}
                        </Show>
                      </span>
                    </div>
                  </li>
                )}
              </For>
            </ul>
          </Show>
        )}
      </Show>
    </section>
  );
}
