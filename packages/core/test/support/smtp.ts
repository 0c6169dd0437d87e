/**
 * A real SMTP server on 127.0.0.1 (the `smtp-server` package) that keeps what it receives, for
 * tests that let nodemailer deliver a message and then read it the way a mail client would.
 */
import type { AddressInfo } from "node:net";
import PostalMime from "postal-mime";
import { SMTPServer } from "smtp-server";

/** One received message: the SMTP envelope, the raw source and its parsed MIME parts. */
export interface ReceivedMessage {
  /** `MAIL FROM` and `RCPT TO` as the server saw them. */
  envelope: { from: string | null; to: string[] };
  raw: string;
  subject: string;
  /** The `From:` header's address. */
  from: string | undefined;
  /** The `To:` header's addresses. */
  to: string[];
  html: string;
  text: string;
}

/** How the next delivery attempt should fail. */
export type SmtpFailure = "recipient" | "data";

/** A running SMTP server and its inbox. */
export interface SmtpInbox {
  readonly host: string;
  readonly port: number;
  /**
   * Transport options for nodemailer that reach this server over plain SMTP, pooled: the server
   * waits 100 ms before greeting each new connection, so reusing connections keeps tests fast.
   * Use `smtp://${host}:${port}` for a connection per message.
   */
  readonly server: { host: string; port: number; secure: false; ignoreTLS: true; pool: true };
  /** How many messages the server has accepted so far (counted before it answers `250`). */
  readonly received: number;
  /** Every message accepted so far, parsed, in order. */
  all(): Promise<ReceivedMessage[]>;
  /** The next message not yet taken; rejects after `timeoutMs` if none arrives. */
  next(timeoutMs?: number): Promise<ReceivedMessage>;
  /** Makes the next delivery fail at `RCPT TO` (550) or after `DATA` (554). */
  failNext(stage: SmtpFailure): void;
  /** Stops the server; connections still open (a nodemailer pool) are cut after 200 ms. */
  close(): Promise<void>;
}

function smtpError(message: string, responseCode: number): Error {
  return Object.assign(new Error(message), { responseCode });
}

async function parse(raw: Buffer, envelope: ReceivedMessage["envelope"]): Promise<ReceivedMessage> {
  const email = await PostalMime.parse(raw);
  const to = (email.to ?? []).flatMap((a) =>
    a.address !== undefined ? [a.address] : a.group.map((m) => m.address),
  );
  return {
    envelope,
    raw: raw.toString("utf8"),
    subject: email.subject ?? "",
    from: email.from?.address,
    to,
    html: email.html ?? "",
    text: email.text ?? "",
  };
}

/** Starts an SMTP server on a free port of 127.0.0.1 that accepts any sender and recipient. */
export async function startSmtpInbox(): Promise<SmtpInbox> {
  const messages: Promise<ReceivedMessage>[] = [];
  const waiters: ((message: Promise<ReceivedMessage>) => void)[] = [];
  let taken = 0;
  let failure: SmtpFailure | undefined;

  const deliver = (message: Promise<ReceivedMessage>) => {
    messages.push(message);
    const waiter = waiters.shift();
    if (waiter) {
      taken++;
      waiter(message);
    }
  };

  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    closeTimeout: 200,
    disableReverseLookup: true,
    onRcptTo(_address, _session, callback) {
      if (failure === "recipient") {
        failure = undefined;
        callback(smtpError("Mailbox unavailable", 550));
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        if (failure === "data") {
          failure = undefined;
          callback(smtpError("Message rejected", 554));
          return;
        }
        const envelope = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
          to: session.envelope.rcptTo.map((r) => r.address),
        };
        const parsed = parse(Buffer.concat(chunks), envelope);
        // Never an unhandled rejection: a parse failure surfaces where the message is awaited.
        parsed.catch(() => {});
        deliver(parsed);
        callback();
      });
    },
  });

  await new Promise<void>((resolve, reject) => {
    smtp.once("error", reject);
    smtp.listen(0, "127.0.0.1", () => {
      smtp.off("error", reject);
      resolve();
    });
  });
  const { port } = smtp.server.address() as AddressInfo;
  const host = "127.0.0.1";

  return {
    host,
    port,
    server: { host, port, secure: false, ignoreTLS: true, pool: true },
    get received() {
      return messages.length;
    },
    all: () => Promise.all(messages),
    next(timeoutMs = 5_000) {
      if (taken < messages.length) return messages[taken++]!;
      return new Promise<ReceivedMessage>((resolve, reject) => {
        const waiter = (message: Promise<ReceivedMessage>) => {
          clearTimeout(timer);
          resolve(message);
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`No email arrived within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
    failNext(stage) {
      failure = stage;
    },
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  };
}

/** The first http(s) URL in a message's plain-text part. */
export function linkInText(message: ReceivedMessage): URL {
  const found = /https?:\/\/[^\s<>"]+/.exec(message.text);
  if (!found) throw new Error("The text part has no link");
  return new URL(found[0]);
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** The first `href` of a message's HTML part, with character references decoded. */
export function linkInHtml(message: ReceivedMessage): URL {
  const found = /<a\s[^>]*href="([^"]*)"/i.exec(message.html);
  if (!found) throw new Error("The HTML part has no link");
  const href = found[1]!.replace(/&(?:#(\d+)|#x([0-9a-f]+)|(\w+));/gi, (entity, dec, hex, name) =>
    dec
      ? String.fromCodePoint(Number(dec))
      : hex
        ? String.fromCodePoint(Number.parseInt(hex, 16))
        : (ENTITIES[name.toLowerCase()] ?? entity),
  );
  return new URL(href);
}
