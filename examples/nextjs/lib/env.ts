/**
 * Demo mode: what `npm start` runs (scripts/demo.mjs sets `GATEHOUSE_DEMO=1`). It seeds the demo
 * account, shows it on the home page, and serves `/dev/mailbox`. A deployed app never sets it.
 */
export function isDemo(): boolean {
  return process.env.GATEHOUSE_DEMO === "1";
}

/** The folder the demo's SMTP capture writes messages to (set by scripts/demo.mjs). */
export function mailboxDir(): string | undefined {
  return isDemo() ? process.env.DEMO_MAILBOX_DIR : undefined;
}
