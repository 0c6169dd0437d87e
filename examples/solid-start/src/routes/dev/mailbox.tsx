import { createAsync, revalidate } from "@solidjs/router";
import { HttpStatusCode } from "@solidjs/start";
import { For, Show } from "solid-js";
import When from "~/components/When";
import { mailboxQuery } from "~/lib/mailbox";

/** Demo mode's inbox: every message the local SMTP capture received, newest first. */
export default function Mailbox() {
  const messages = createAsync(() => mailboxQuery(), { deferStream: true });
  return (
    <Show when={messages() !== null} fallback={<HttpStatusCode code={404} />}>
      <h1>Mailbox</h1>
      <p class="muted">
        Messages sent by the app in demo mode land here instead of a real inbox.{" "}
        <button
          type="button"
          class="secondary"
          data-testid="mailbox-refresh"
          onClick={() => revalidate(mailboxQuery.key)}
        >
          Refresh
        </button>
      </p>
      <Show
        when={messages()?.length}
        fallback={<p data-testid="mailbox-empty">No messages yet.</p>}
      >
        <For each={messages()}>
          {(message) => (
            <article class="card" data-testid="mailbox-message">
              <h2 data-testid="mailbox-subject">{message.subject}</h2>
              <p class="muted">
                To <span data-testid="mailbox-to">{message.to.join(", ")}</span> at{" "}
                <When at={message.receivedAt} />
              </p>
              <Show when={message.code}>
                <p>
                  Sign-in code: <strong data-testid="mailbox-code">{message.code}</strong>
                </p>
              </Show>
              <For each={message.links}>
                {(link) => (
                  <p>
                    <a class="button" href={link} rel="external" data-testid="mailbox-link">
                      Open the link
                    </a>
                  </p>
                )}
              </For>
              <pre>{message.text}</pre>
            </article>
          )}
        </For>
      </Show>
    </Show>
  );
}
