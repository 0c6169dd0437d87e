"use client";
import { listSessions, revokeSessions, type SessionInfo } from "@gatehousejs/nextjs/client";
import Link from "next/link";
import { useCallback, useEffect, useState } from "react";
import { When } from "@/components/When";

/**
 * Every browser signed in to this account (`listSessions()` is `GET /api/auth/sessions`), this
 * one marked; end one, or all the others (`revokeSessions()` is
 * `POST /api/auth/sessions/revoke`). An ended session is signed out on its next request.
 */
export function SessionList({ names }: { names: Record<string, string> }) {
  const [sessions, setSessions] = useState<SessionInfo[] | null | undefined>(undefined);
  const [message, setMessage] = useState("");
  const [busy, setBusy] = useState(false);

  const reload = useCallback(async () => {
    try {
      setSessions(await listSessions());
    } catch {
      setMessage("The sessions could not be read. Try again.");
      setSessions((current) => current ?? []);
    }
  }, []);

  useEffect(() => {
    void reload();
  }, [reload]);

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

  const methodOf = (session: SessionInfo) =>
    session.provider ? (names[session.provider] ?? session.provider) : null;

  return (
    <>
      {sessions === undefined ? <p className="muted">Reading your sessions…</p> : null}
      {sessions === null ? (
        <p data-testid="sessions-signed-out">
          You are not signed in.{" "}
          <Link
            className="button"
            href="/login?callbackUrl=%2Fsessions"
            data-testid="sessions-sign-in"
          >
            Sign in
          </Link>
        </p>
      ) : null}
      {sessions ? (
        <>
          <p className="muted">
            Every browser signed in to your account. End any you do not recognise.
          </p>
          <ul className="sessions" data-testid="sessions-list">
            {sessions.map((session) => (
              <li className="row" key={session.id} data-testid="session-row">
                <div className="details">
                  <strong data-testid="session-client">
                    {session.client ?? "An unknown browser"}
                  </strong>
                  {session.current ? (
                    <>
                      {" "}
                      <span className="tag" data-testid="session-current">
                        this browser
                      </span>
                    </>
                  ) : null}
                  <br />
                  <span className="muted" data-testid="session-details">
                    {methodOf(session) ? `Signed in with ${methodOf(session)}` : null}
                    {session.createdAt ? (
                      <>
                        {methodOf(session) ? " on " : "Signed in on "}
                        <When at={session.createdAt} />
                      </>
                    ) : null}
                    {session.current ? "; active now" : null}
                    {session.ip ? ` · ${session.ip}` : null}
                  </span>
                </div>
                {session.current ? null : (
                  <button
                    type="button"
                    className="secondary"
                    disabled={busy}
                    onClick={() => revoke({ id: session.id })}
                    data-testid="session-revoke"
                  >
                    End this session
                  </button>
                )}
              </li>
            ))}
          </ul>
          <button
            type="button"
            disabled={busy || sessions.every((session) => session.current)}
            onClick={() => revoke({ others: true })}
            data-testid="sessions-revoke-others"
          >
            Sign out everywhere else
          </button>
        </>
      ) : null}
      <p className="muted" data-testid="sessions-message" aria-live="polite">
        {message}
      </p>
    </>
  );
}
