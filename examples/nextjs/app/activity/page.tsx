import { listSecurityEvents } from "@gatehousejs/nextjs";
import { redirect } from "next/navigation";
import { auth, authConfig, providerName } from "@/auth";
import { When } from "@/components/When";

const LABELS: Record<string, string> = {
  signIn: "Signed in",
  signInFailed: "Failed sign-in attempt",
  signOut: "Signed out",
  sessionRevoked: "Session ended",
  accountLinked: "Account linked",
  emailVerified: "Email address verified",
  passkeyAdded: "Passkey added",
};

/** The log's reason codes, in words; an unknown code is shown as it is. */
const REASONS: Record<string, string> = {
  revokedByUser: "ended from another browser",
  signOutOthers: "signed out everywhere else",
  signOutEverywhere: "signed out everywhere",
  revokedByServer: "ended by the app",
  CredentialsSignin: "wrong email or password",
  RateLimited: "too many attempts",
};

interface Line {
  id: string;
  type: string;
  count: number;
  latest: string;
  earliest: string;
  provider: string | null;
  newClient: boolean;
  client: string | null;
  ip: string | null;
  reason: string | null;
}

/**
 * "Recent security activity", a Server Component: `listSecurityEvents()` for the signed-in user
 * (the `session` callback in auth.ts puts the id in the session), newest first; consecutive
 * events that are alike (fifty failed attempts) are one line with a count.
 */
export default async function Activity() {
  const session = await auth();
  const userId = session?.user?.id;
  if (!userId) redirect("/login?callbackUrl=%2Factivity");
  const events = await listSecurityEvents(authConfig, userId, { limit: 100 });
  const lines: Line[] = [];
  for (const event of events) {
    const line = {
      type: event.type,
      provider: providerName(event.provider),
      newClient: event.newClient ?? false,
      client: event.client ?? null,
      ip: event.ip ?? null,
      reason: event.reason ?? null,
    };
    const last = lines.at(-1);
    const alike =
      last &&
      !line.newClient &&
      !last.newClient &&
      (Object.keys(line) as (keyof typeof line)[]).every((key) => last[key] === line[key]);
    const at = event.at.toISOString();
    if (alike) {
      last.count += 1;
      last.earliest = at;
    } else {
      lines.push({ id: event.id, count: 1, latest: at, earliest: at, ...line });
    }
  }
  return (
    <section className="card">
      <h1>Recent security activity</h1>
      {lines.length === 0 ? <p data-testid="activity-empty">Nothing recorded yet.</p> : null}
      <ul className="sessions" data-testid="activity-list">
        {lines.slice(0, 20).map((line) => (
          <li
            className="row"
            key={line.id}
            data-testid="activity-row"
            data-type={line.type}
            data-count={line.count}
          >
            <div className="details">
              <strong>{LABELS[line.type] ?? line.type}</strong>
              {line.count > 1 ? (
                <span className="count" data-testid="activity-count">
                  {" "}
                  × {line.count}
                </span>
              ) : null}
              {line.provider ? ` with ${line.provider}` : null}
              {line.newClient ? (
                <>
                  {" "}
                  <span className="tag">new browser</span>
                </>
              ) : null}
              <br />
              <span className="muted">
                {line.count > 1 ? (
                  <>
                    <When at={line.earliest} /> to{" "}
                  </>
                ) : null}
                <When at={line.latest} />
                {line.client ? ` · ${line.client}` : null}
                {line.ip ? ` · ${line.ip}` : null}
                {line.reason ? ` · ${REASONS[line.reason] ?? line.reason}` : null}
              </span>
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
