/**
 * An app with the password provider served over real HTTP (node:http bridged to `Auth()`), its
 * mail delivered by the provider's own SMTP path (nodemailer) to a real SMTP server, driven by
 * browsers that are cookie jars over `fetch`. Everything that leaves the app is recorded: every
 * response (status, headers, body), every logger call (debug on), every event callback's
 * argument and every security-log entry, so a test can look for a secret in all of it.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Auth } from "@gatehousejs/core";
import type { Adapter } from "@gatehousejs/core/adapters";
import { hashPassword, type PasswordHashOptions } from "@gatehousejs/core/password";
import Password from "@gatehousejs/core/providers/password";
import { MemorySecurityEventStore } from "@gatehousejs/core/security-log/memory";
import type { AuthConfig } from "@gatehousejs/core/types";
import { recordingLogger, SECRET } from "../../packages/core/test/helpers.js";
import { FAST_HASH } from "../../packages/core/test/password-world.js";
import { formOf } from "../../packages/core/test/support/email-link.js";
import {
  linkInText,
  type ReceivedMessage,
  type SmtpInbox,
} from "../../packages/core/test/support/smtp.js";

/** One HTTP answer as a browser sees it, body read once. */
export interface Answer {
  status: number;
  location: string | null;
  contentType: string | null;
  setCookie: string[];
  body: string;
  /** Every header but `set-cookie`, as `name: value` lines. */
  headerLines: string[];
}

/** A browser: its cookies, carried from each answer to the next request. */
export class Browser {
  readonly cookies = new Map<string, string>();

  constructor(readonly app: App) {}

  /** A second browser holding this one's cookies (the same person, another tab or request). */
  copy(): Browser {
    const other = new Browser(this.app);
    for (const [name, value] of this.cookies) other.cookies.set(name, value);
    return other;
  }

  async request(
    path: string,
    init: { form?: Record<string, string>; json?: unknown } = {},
  ): Promise<Answer> {
    const headers = new Headers();
    if (this.cookies.size) {
      headers.set(
        "cookie",
        [...this.cookies].map(([n, v]) => `${n}=${encodeURIComponent(v)}`).join("; "),
      );
    }
    let body: string | undefined;
    if (init.form) {
      headers.set("content-type", "application/x-www-form-urlencoded");
      body = new URLSearchParams(init.form).toString();
    } else if (init.json !== undefined) {
      headers.set("content-type", "application/json");
      body = JSON.stringify(init.json);
    }
    const url = new URL(path, this.app.origin);
    const response = await fetch(url, {
      method: body === undefined ? "GET" : "POST",
      headers,
      body,
      redirect: "manual",
    });
    const headerLines: string[] = [];
    response.headers.forEach((value, name) => {
      if (name !== "set-cookie") headerLines.push(`${name}: ${value}`);
    });
    const answer: Answer = {
      status: response.status,
      location: response.headers.get("location"),
      contentType: response.headers.get("content-type"),
      setCookie: response.headers.getSetCookie(),
      body: await response.text(),
      headerLines,
    };
    for (const raw of answer.setCookie) {
      const pair = raw.split(";")[0]!;
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq);
      const value = decodeURIComponent(pair.slice(eq + 1));
      if (/Max-Age=0/i.test(raw) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    this.app.answers.push(answer);
    return answer;
  }

  async csrf(): Promise<string> {
    const answer = await this.request("/auth/csrf");
    return (JSON.parse(answer.body) as { csrfToken: string }).csrfToken;
  }

  /** Posts `fields` (with this browser's CSRF token) to `path`. */
  async post(path: string, fields: Record<string, string>): Promise<Answer> {
    return this.request(path, { form: { csrfToken: await this.csrf(), ...fields } });
  }

  signUp(email: string, password: string): Promise<Answer> {
    return this.post("/auth/signup/password", { email, password });
  }

  signIn(email: string, password: string): Promise<Answer> {
    return this.post("/auth/callback/password", { email, password });
  }

  /** Opens an emailed link (the scanner-safe page) and presses its button with `extra` fields. */
  async follow(link: URL, extra: Record<string, string> = {}): Promise<Answer> {
    const page = await this.request(link.pathname + link.search);
    if (page.status !== 200) throw new Error(`The link answered ${page.status}, not its page`);
    const { action, fields } = formOf(page.body);
    const target = new URL(action, this.app.origin);
    return this.request(target.pathname + target.search, { form: { ...fields, ...extra } });
  }

  /** The address this browser's session shows, or null. */
  async signedInAs(): Promise<string | null> {
    const answer = await this.request("/auth/session");
    if (answer.status !== 200) throw new Error(`/auth/session answered ${answer.status}`);
    const session = JSON.parse(answer.body) as { user?: { email?: string } } | null;
    return session?.user?.email ?? null;
  }
}

/** A response as an enumerating client compares them: no cookie value, no clock. */
export function observed(answer: Answer) {
  return {
    status: answer.status,
    location: answer.location,
    contentType: answer.contentType,
    body: answer.body,
    cookies: answer.setCookie.map((raw) => {
      const [pair, ...attributes] = raw.split(";");
      const eq = pair!.indexOf("=");
      return {
        name: pair!.slice(0, eq),
        length: pair!.length - eq - 1,
        attributes: attributes.map((a) => a.trim()).filter((a) => !/^Expires=/i.test(a)),
      };
    }),
  };
}

/** Everything the app let out, as text, to search for secrets. */
export interface Recorded {
  answers: Answer[];
  logLines: string[];
  /** How many of `logLines` are debug lines (the recording is at debug level). */
  debugLines: number;
  events: string[];
  securityLog: string[];
}

/** JSON that keeps what `JSON.stringify` drops: errors (message, stack, cause), maps, sets. */
function dump(value: unknown): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof Error) {
      // Own fields first (an AuthError's `type`, `kind`, …), then what an Error keeps unlisted.
      return { ...v, name: v.name, message: v.message, stack: v.stack, cause: v.cause };
    }
    if (v instanceof Map) return Object.fromEntries(v);
    if (v instanceof Set) return [...v];
    if (typeof v === "bigint") return String(v);
    if (v && typeof v === "object") {
      if (seen.has(v)) return "[seen]";
      seen.add(v);
    }
    return v;
  });
}

export interface App {
  origin: string;
  config: AuthConfig;
  answers: Answer[];
  recorded(): Promise<Recorded>;
  browser(): Browser;
  close(): Promise<void>;
}

async function toRequest(req: IncomingMessage, origin: string): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const method = req.method ?? "GET";
  return new Request(new URL(req.url ?? "/", origin), {
    method,
    headers,
    body:
      method !== "GET" && method !== "HEAD" && chunks.length ? Buffer.concat(chunks) : undefined,
  });
}

/**
 * Serves `Auth()` for an app on `adapter` with the password provider (cheap scrypt), mailing
 * through nodemailer to `inbox`, with `session`, no rate limits (the timing and the 20
 * concurrent resets would otherwise meet them), debug logging and every event recorded.
 */
export async function serveApp(options: {
  adapter: Adapter;
  inbox: SmtpInbox;
  session: AuthConfig["session"];
  /** scrypt's parameters; the unit tests' cheap ones unless given. */
  hash?: PasswordHashOptions;
}): Promise<App> {
  const logger = recordingLogger();
  const securityLog = MemorySecurityEventStore();
  const events: string[] = [];
  const record =
    (name: string) =>
    (...args: unknown[]): void => {
      events.push(`${name} ${dump(args)}`);
    };
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    debug: true,
    logger,
    adapter: options.adapter,
    session: options.session,
    rateLimit: false,
    securityLog: { store: securityLog },
    events: {
      signIn: record("signIn"),
      signOut: record("signOut"),
      createUser: record("createUser"),
      updateUser: record("updateUser"),
      linkAccount: record("linkAccount"),
      session: record("session"),
    },
    providers: [
      Password({
        hash: options.hash ?? FAST_HASH,
        server: options.inbox.server,
        from: "Gatehouse <auth@gatehouse.test>",
      }),
    ],
  };
  const userIds = new Set<string>();
  let origin = "";
  const server: Server = createServer((req, res) => {
    (async () => {
      const response = await Auth(await toRequest(req, origin), config);
      const headers: Record<string, string | string[]> = {};
      response.headers.forEach((value, name) => {
        if (name !== "set-cookie") headers[name] = value;
      });
      const cookies = response.headers.getSetCookie();
      if (cookies.length) headers["set-cookie"] = cookies;
      res.writeHead(response.status, headers);
      res.end(Buffer.from(await response.arrayBuffer()));
    })().catch((error: unknown) => {
      res.writeHead(500).end(`bridge failure: ${(error as Error).name}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const app: App = {
    origin,
    config,
    answers: [],
    browser: () => new Browser(app),
    async recorded() {
      for (const line of events) {
        for (const id of line.matchAll(/"userId":"([^"]+)"/g)) userIds.add(id[1]!);
        for (const id of line.matchAll(/"user":\{"id":"([^"]+)"/g)) userIds.add(id[1]!);
      }
      const entries = await Promise.all(
        [...userIds].map((id) => securityLog.list(id, { limit: 100 })),
      );
      const logLines = [
        ...logger.error.mock.calls,
        ...logger.warn.mock.calls,
        ...logger.debug.mock.calls,
      ].map((call) => dump(call));
      return {
        answers: app.answers,
        logLines,
        debugLines: logger.debug.mock.calls.length,
        events,
        securityLog: entries.flat().map((e) => dump(e)),
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return app;
}

/** A user whose address is proven, holding `password` under the provider; returns its id. */
export async function provenUser(
  adapter: Adapter,
  email: string,
  password: string,
  hash: PasswordHashOptions = FAST_HASH,
) {
  const user = await adapter.createUser!({
    id: crypto.randomUUID(),
    email,
    emailVerified: new Date(),
  });
  await adapter.linkAccount!({
    userId: user.id,
    type: "password",
    provider: "password",
    providerAccountId: user.id,
    passwordHash: await hashPassword(password, hash),
  });
  return user.id;
}

/** The stored password hash of the user holding `email` (pending or not), or undefined. */
export async function storedHash(adapter: Adapter, email: string): Promise<string | undefined> {
  const user = await adapter.getUserByEmail!(email);
  if (!user) return undefined;
  const account = await adapter.getAccount!(user.id, "password");
  return (account as { passwordHash?: string } | null)?.passwordHash ?? undefined;
}

/** The mail to `to` whose subject contains `subject`, not taken before; waits up to 5 s. */
export function mailbox(inbox: SmtpInbox) {
  const taken = new Set<ReceivedMessage>();
  return {
    async take(to: string, subject: string): Promise<ReceivedMessage> {
      const deadline = Date.now() + 5_000;
      for (;;) {
        const found = (await inbox.all()).find(
          (m) => !taken.has(m) && m.to.includes(to) && m.subject.includes(subject),
        );
        if (found) {
          taken.add(found);
          return found;
        }
        if (Date.now() > deadline) throw new Error(`No "${subject}" mail to ${to} within 5 s`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    link: (message: ReceivedMessage): URL => linkInText(message),
  };
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
