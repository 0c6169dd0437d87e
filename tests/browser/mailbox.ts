/**
 * The demo's SMTP capture (examples/solid-start/scripts/demo-services.mjs) as a browser test reads
 * it: each message a JSON file in the mailbox folder; a link is taken from a message the way a
 * person's mail program shows it.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";

/** A message as the demo's SMTP capture keeps it. */
export interface CapturedMail {
  to: string[];
  subject: string;
  text: string;
}

/** Every captured message to `to`, oldest first. */
export async function mailTo(mailboxDir: string, to: string): Promise<CapturedMail[]> {
  const names = (await readdir(mailboxDir).catch(() => [] as string[]))
    .filter((name) => name.endsWith(".json"))
    .sort();
  const messages: CapturedMail[] = [];
  for (const name of names) {
    const message = JSON.parse(await readFile(join(mailboxDir, name), "utf8")) as CapturedMail;
    if (message.to.includes(to)) messages.push(message);
  }
  return messages;
}

/**
 * The link on `pathname` in the newest message to `to` whose subject matches, once it arrived.
 */
export async function mailedLink(
  mailboxDir: string,
  to: string,
  subject: RegExp,
  pathname: string,
): Promise<string> {
  let link: string | undefined;
  await expect
    .poll(
      async () => {
        const message = (await mailTo(mailboxDir, to))
          .filter((m) => subject.test(m.subject))
          .at(-1);
        link = message?.text
          .match(/https?:\/\/[^\s<>"]+/g)
          ?.find((url) => new URL(url).pathname === pathname);
        return link;
      },
      { timeout: 15_000 },
    )
    .toBeDefined();
  return link!;
}
