import type { SessionInfo } from "@gatehousejs/solid-start/client";
import { listSessions, revokeSessions } from "@gatehousejs/solid-start/client";
import { createSignal, For, Match, onMount, Show, Switch } from "solid-js";

function when(iso: string | null): string {
  return iso ? new Date(iso).toUTCString() : "unknown";
}

function describe(session: SessionInfo): string {
  const how = session.provider ? ` with ${session.provider}` : "";
  return `${session.client ?? "An unknown browser"}${how}`;
}

/**
 * "Your sessions": every browser signed in to this account (`listSessions()` is
 * `GET /api/auth/sessions`), this one marked; end one, or all the others (`revokeSessions()` is
 * `POST /api/auth/sessions/revoke`). Read in the browser, so that the list is always fresh.
 */
export default function Sessions() {
  const [sessions, setSessions] = createSignal<SessionInfo[] | null | undefined>(undefined);
  const [message, setMessage] = createSignal("");
  const [busy, setBusy] = createSignal(false);

  async function reload() {
    try {
      setSessions(await listSessions());
    } catch {
      setMessage("The sessions could not be read. Try again.");
      setSessions((current) => current ?? []);
    }
  }

  async function revoke(target: { id: string } | { others: true }) {
    setBusy(true);
    try {
      const { revoked } = await revokeSessions(target);
      setMessage(
        revoked === 0
          ? "No session was ended (it had ended already)."
          : `Ended ${revoked} session${revoked === 1 ? "" : "s"}.`,
      );
    } catch {
      setMessage("The session could not be ended. Reload the page and try again.");
    } finally {
      setBusy(false);
      await reload();
    }
  }

  onMount(reload);

  return (
    <section class="card">
      <h1>Your sessions</h1>
      <Switch>
        <Match when={sessions() === undefined}>
          <p class="muted">Reading your sessions…</p>
        </Match>
        <Match when={sessions() === null}>
          <p data-testid="sessions-signed-out">
            You are not signed in. <a href="/api/auth/signin">Sign in</a> first.
          </p>
        </Match>
        <Match when={sessions()}>
          {(list) => (
            <>
              <p class="muted">
                Every browser signed in to your account. End any you do not recognise.
              </p>
              <ul class="sessions" data-testid="sessions-list">
                <For each={list()}>
                  {(session) => (
                    <li data-testid="session-row" data-session-id={session.id}>
                      <strong>{describe(session)}</strong>
                      <Show when={session.current}>
                        {" "}
                        <span class="tag" data-testid="session-current">
                          this browser
                        </span>
                      </Show>
                      <br />
                      <span class="muted">
                        Signed in {when(session.createdAt)}; last seen {when(session.lastSeenAt)}
                        <Show when={session.ip}> from {session.ip}</Show>.
                      </span>
                      <Show when={!session.current}>
                        {" "}
                        <button
                          type="button"
                          class="secondary"
                          disabled={busy()}
                          data-testid="session-revoke"
                          onClick={() => revoke({ id: session.id })}
                        >
                          End this session
                        </button>
                      </Show>
                    </li>
                  )}
                </For>
              </ul>
              <button
                type="button"
                disabled={busy() || list().every((session) => session.current)}
                data-testid="sessions-revoke-others"
                onClick={() => revoke({ others: true })}
              >
                Sign out everywhere else
              </button>
            </>
          )}
        </Match>
      </Switch>
      <p class="muted" data-testid="sessions-message">
        {message()}
      </p>
    </section>
  );
}
