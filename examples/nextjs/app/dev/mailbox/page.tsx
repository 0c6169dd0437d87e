import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { notFound } from "next/navigation";
import { When } from "@/components/When";
import { mailboxDir } from "@/lib/env";

// Read on every visit: the messages arrive while the app runs.
export const dynamic = "force-dynamic";

interface Stored {
  receivedAt: string;
  to: string[];
  subject: string;
  text: string;
}

const LINK = /https?:\/\/[^\s<>"]+/g;
// The line Gatehouse's default sign-in email puts the code on.
const CODE = /code on the sign-in page: (\S+)/;

/** Demo mode's inbox: every message the local SMTP capture received, newest first. */
export default async function Mailbox() {
  const dir = mailboxDir();
  if (!dir) notFound();
  const names = (await readdir(dir).catch(() => [] as string[]))
    .filter((name) => name.endsWith(".json"))
    .sort()
    .reverse()
    .slice(0, 50);
  const messages = await Promise.all(
    names.map(async (name) => {
      const stored = JSON.parse(await readFile(join(dir, name), "utf8")) as Stored;
      return {
        ...stored,
        id: name,
        links: stored.text.match(LINK) ?? [],
        code: CODE.exec(stored.text)?.[1],
      };
    }),
  );
  return (
    <>
      <h1>Mailbox</h1>
      <p className="muted">
        Messages sent by the app in demo mode land here instead of a real inbox.{" "}
        {/* A plain link: the page is read again from the server. */}
        <a className="button secondary" href="/dev/mailbox" data-testid="mailbox-refresh">
          Refresh
        </a>
      </p>
      {messages.length === 0 ? <p data-testid="mailbox-empty">No messages yet.</p> : null}
      {messages.map((message) => (
        <article className="card" key={message.id} data-testid="mailbox-message">
          <h2 data-testid="mailbox-subject">{message.subject}</h2>
          <p className="muted">
            To <span data-testid="mailbox-to">{message.to.join(", ")}</span> at{" "}
            <When at={message.receivedAt} />
          </p>
          {message.code ? (
            <p>
              Sign-in code: <strong data-testid="mailbox-code">{message.code}</strong>
            </p>
          ) : null}
          {message.links.map((link) => (
            <p key={link}>
              <a className="button" href={link} data-testid="mailbox-link">
                Open the link
              </a>
            </p>
          ))}
          <pre>{message.text}</pre>
        </article>
      ))}
    </>
  );
}
