import type { SessionInfo, TwoFactorStatus } from "@gatehousejs/solid-start/client";
import {
  AuthRouteError,
  forgetTrustedBrowser,
  listSessions,
  revokeSessions,
  twoFactorStatus,
} from "@gatehousejs/solid-start/client";
import { createAsync } from "@solidjs/router";
import { createSignal, For, Match, onMount, Show, Switch } from "solid-js";
import SignInLink from "~/components/SignInLink";
import When from "~/components/When";
import { providerNamesQuery } from "~/lib/session";

/** Whether the session was used after it signed in (by more than a minute). */
function seenSince(session: SessionInfo): boolean {
  if (!session.lastSeenAt || !session.createdAt) return false;
  return Date.parse(session.lastSeenAt) - Date.parse(session.createdAt) > 60_000;
}

/**
 * "Your sessions": every browser signed in to this account (`listSessions()` is
 * `GET /api/auth/sessions`), this one marked; end one, or all the others (`revokeSessions()` is
 * `POST /api/auth/sessions/revoke`). With two-factor sign-in on, the browsers that skip the code
 * (`twoFactorStatus()` is `GET /api/auth/two-factor`), each with "Forget"
 * (`forgetTrustedBrowser()` is `POST /api/auth/two-factor/forget-browser`). Read in the browser,
 * so that the lists are always fresh.
 */
export default function Sessions() {
  const [sessions, setSessions] = createSignal<SessionInfo[] | null | undefined>(undefined);
  const [message, setMessage] = createSignal("");
  const [busy, setBusy] = createSignal(false);
  const [twoFactor, setTwoFactor] = createSignal<TwoFactorStatus | null>(null);
  const [trustMessage, setTrustMessage] = createSignal("");
  const names = createAsync(() => providerNamesQuery());
  const methodOf = (session: SessionInfo) =>
    session.provider ? (names()?.[session.provider] ?? session.provider) : null;

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

  async function reloadTrusted() {
    try {
      setTwoFactor(await twoFactorStatus());
    } catch (error) {
      // The trusted browsers' section is hidden without a status: say it on the page's line.
      setMessage(
        error instanceof AuthRouteError
          ? (error.detail ?? "The trusted browsers could not be read. Try again.")
          : "The trusted browsers could not be read. Try again.",
      );
    }
  }

  async function forget(id: string) {
    setBusy(true);
    try {
      const { message, trustedBrowsers } = await forgetTrustedBrowser({ id });
      setTrustMessage(message);
      setTwoFactor((status) => status && { ...status, trustedBrowsers });
    } catch (error) {
      setTrustMessage(
        error instanceof AuthRouteError
          ? (error.detail ?? "The browser was not forgotten.")
          : "The browser could not be forgotten. Reload the page and try again.",
      );
      await reloadTrusted();
    } finally {
      setBusy(false);
    }
  }

  onMount(() => Promise.all([reload(), reloadTrusted()]));

  return (
    <section class="card">
      <h1>Your sessions</h1>
      <Switch>
        <Match when={sessions() === undefined}>
          <p class="muted">Reading your sessions…</p>
        </Match>
        <Match when={sessions() === null}>
          <p data-testid="sessions-signed-out">
            You are not signed in. <SignInLink testId="sessions-sign-in" />
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
                    <li class="row" data-testid="session-row" data-session-id={session.id}>
                      <div class="details">
                        <strong data-testid="session-client">
                          {session.client ?? "An unknown browser"}
                        </strong>
                        <Show when={session.current}>
                          {" "}
                          <span class="tag" data-testid="session-current">
                            this browser
                          </span>
                        </Show>
                        <br />
                        <span class="muted" data-testid="session-details">
                          <Show when={methodOf(session)}>
                            {(method) => <>Signed in with {method()}</>}
                          </Show>
                          <Show when={session.createdAt}>
                            {(at) => (
                              <>
                                {methodOf(session) ? " on " : "Signed in on "}
                                <When at={at()} />
                              </>
                            )}
                          </Show>
                          <Show
                            when={session.current}
                            fallback={
                              <Show when={seenSince(session) && session.lastSeenAt}>
                                {(at) => (
                                  <>
                                    ; last active <When at={at()} />
                                  </>
                                )}
                              </Show>
                            }
                          >
                            ; active now
                          </Show>
                          <Show when={session.ip}> · {session.ip}</Show>
                        </span>
                      </div>
                      <Show when={!session.current}>
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
              <Show when={twoFactor()?.enabled && twoFactor()}>
                {(status) => (
                  <section data-testid="trusted-browsers">
                    <h2>Trusted browsers</h2>
                    <p class="muted">
                      Browsers that skip the two-factor code at sign-in. Forget one to be asked for
                      a code there again.
                    </p>
                    <Show
                      when={status().trustedBrowsers.length > 0}
                      fallback={
                        <p class="muted" data-testid="trusted-browsers-none">
                          No browser skips the code.
                        </p>
                      }
                    >
                      <ul class="sessions" data-testid="trusted-browsers-list">
                        <For each={status().trustedBrowsers}>
                          {(trusted) => (
                            <li
                              class="row"
                              data-testid="trusted-browser-row"
                              data-trusted-browser-id={trusted.id}
                            >
                              <div class="details">
                                <strong data-testid="trusted-browser-client">
                                  {trusted.client}
                                </strong>
                                <Show when={trusted.current}>
                                  {" "}
                                  <span class="tag" data-testid="trusted-browser-current">
                                    this browser
                                  </span>
                                </Show>
                                <br />
                                <span class="muted" data-testid="trusted-browser-details">
                                  Trusted since <When at={trusted.createdAt} />, until{" "}
                                  <When at={trusted.expiresAt} />
                                </span>
                              </div>
                              <button
                                type="button"
                                class="secondary"
                                disabled={busy()}
                                data-testid="trusted-browser-forget"
                                onClick={() => forget(trusted.id)}
                              >
                                Forget
                              </button>
                            </li>
                          )}
                        </For>
                      </ul>
                    </Show>
                    <p class="muted" data-testid="trusted-browsers-message">
                      {trustMessage()}
                    </p>
                  </section>
                )}
              </Show>
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
