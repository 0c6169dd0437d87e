/**
 * The demo SMTP capture's messages (JSON files written by scripts/demo-services.mjs), newest
 * first. Only in demo mode.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { query } from "@solidjs/router";
import { mailboxDir } from "./env";

export interface MailboxMessage {
  id: string;
  receivedAt: string;
  from: string;
  to: string[];
  subject: string;
  text: string;
  /** The http(s) links of the plain-text part, such as a sign-in link. */
  links: string[];
  /** The one-time sign-in code of the plain-text part, when it has one. */
  code?: string;
}

const LINK = /https?:\/\/[^\s<>"]+/g;
// The line Gatehouse's default sign-in email puts the code on.
const CODE = /code on the sign-in page: (\S+)/;

/** The captured messages, or `null` outside demo mode. */
export const mailboxQuery = query(async (): Promise<MailboxMessage[] | null> => {
  "use server";
  const dir = mailboxDir();
  if (!dir) return null;
  const names = (await readdir(dir).catch(() => [] as string[]))
    .filter((name) => name.endsWith(".json"))
    .sort()
    .reverse()
    .slice(0, 50);
  const messages: MailboxMessage[] = [];
  for (const name of names) {
    const stored = JSON.parse(await readFile(join(dir, name), "utf8")) as Omit<
      MailboxMessage,
      "id" | "links"
    >;
    const code = CODE.exec(stored.text)?.[1];
    messages.push({
      ...stored,
      id: name,
      links: stored.text.match(LINK) ?? [],
      ...(code ? { code } : {}),
    });
  }
  return messages;
}, "mailbox");
