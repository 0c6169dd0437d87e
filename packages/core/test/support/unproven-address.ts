/**
 * An app with its own sign-up and password store (a Credentials provider) beside email sign-in,
 * on any adapter and session strategy: the setting in which whoever signs up with an address
 * they do not own holds a session of that user until the owner proves the address.
 */
import { randomUUID } from "node:crypto";
import type { Adapter } from "@gatehousejs/core/adapters";
import Credentials from "@gatehousejs/core/providers/credentials";
import Email from "@gatehousejs/core/providers/email";
import { MemorySecurityEventStore } from "@gatehousejs/core/security-log/memory";
import type { AuthConfig } from "@gatehousejs/core/types";
import { expect } from "vitest";
import { csrfToken, Jar, recordingLogger, SECRET, send } from "../helpers.js";
import { followLink } from "./email-link.js";

export interface UnprovenAddressOptions {
  adapter: Adapter;
  session: AuthConfig["session"];
  /** Leave the Credentials provider out (default: configured). */
  credentials?: boolean;
}

export function unprovenAddressWorld(options: UnprovenAddressOptions) {
  const { adapter } = options;
  /** The app's own password store, by user id. */
  const passwords = new Map<string, string>();
  const mails: { url: URL; code?: string }[] = [];
  const securityLog = MemorySecurityEventStore();
  const logger = recordingLogger();
  const credentials = Credentials({
    credentials: { email: {}, password: {} },
    authorize: async ({ email, password }) => {
      const user = await adapter.getUserByEmail?.(String(email));
      return user && passwords.get(user.id) === password ? user : null;
    },
  });
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger,
    adapter,
    session: options.session,
    securityLog: { store: securityLog },
    providers: [
      ...(options.credentials === false ? [] : [credentials]),
      Email({
        code: true,
        sendVerificationRequest: ({ url, code }) => {
          mails.push({ url: new URL(url), code });
        },
      }),
    ],
  };

  /** The app's own sign-up: stores the address as given (unproven) and a password. */
  async function signUp(email: string, password: string, emailVerified: Date | null = null) {
    const user = await adapter.createUser!({ id: randomUUID(), email, emailVerified });
    passwords.set(user.id, password);
    return user;
  }

  async function passwordSignIn(email: string, password: string, jar = new Jar()) {
    const response = await send(config, jar, "/auth/callback/credentials", {
      form: { csrfToken: await csrfToken(config, jar), email, password },
    });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).not.toContain("error=");
    return jar;
  }

  /** Asks for an email in `jar`; returns what was mailed. */
  async function ask(email: string, jar: Jar) {
    const asked = await send(config, jar, "/auth/signin/email", {
      form: { csrfToken: await csrfToken(config, jar), email },
    });
    expect(asked.status).toBe(302);
    return mails.at(-1)!;
  }

  /** Signs in by the emailed link, clicked in `jar`. */
  async function linkSignIn(email: string, jar = new Jar()) {
    const { url } = await ask(email, jar);
    return { response: await followLink(config, jar, url), jar };
  }

  /** Signs in by the emailed code, typed in the browser that asked for it. */
  async function codeSignIn(email: string, jar = new Jar()) {
    const { code } = await ask(email, jar);
    const response = await send(config, jar, "/auth/callback/email", {
      form: { csrfToken: await csrfToken(config, jar), code: code! },
    });
    return { response, jar };
  }

  /** The address the jar's session shows, or null when it has none. */
  async function signedInAs(jar: Jar): Promise<string | null> {
    const response = await send(config, jar, "/auth/session");
    expect(response.status).toBe(200);
    const body = (await response.json()) as { user?: { email?: string } } | null;
    return body?.user?.email ?? null;
  }

  return {
    config,
    logger,
    securityLog,
    signUp,
    passwordSignIn,
    linkSignIn,
    codeSignIn,
    signedInAs,
  };
}
