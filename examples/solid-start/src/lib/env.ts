/**
 * Demo mode: what `npm start` runs (scripts/start.mjs sets `GATEHOUSE_DEMO=1`). It adds the demo
 * account's hint on the home page, the `/dev/mailbox` page and the local OpenID provider. A
 * deployed app never sets it.
 */
export function isDemo(): boolean {
  return process.env.GATEHOUSE_DEMO === "1";
}

/** The folder the demo SMTP capture writes messages to (set by scripts/start.mjs). */
export function mailboxDir(): string | undefined {
  return isDemo() ? process.env.DEMO_MAILBOX_DIR : undefined;
}
