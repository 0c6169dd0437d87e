/**
 * An email provider that hands its links to the test, in a configuration with the memory adapter:
 * the setting the linking suites share.
 */
import type { Adapter } from "@gatehousejs/core/adapters";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import type { AuthConfig, EmailConfig, Provider } from "@gatehousejs/core/types";
import { expect } from "vitest";
import { csrfToken, Jar, recordingLogger, SECRET, send } from "../helpers.js";
import { followLink } from "./email-link.js";

export interface EmailWorldOptions {
  /** Providers besides the email provider (which comes last). */
  providers?: Provider[];
  /** Leave the email provider out. */
  email?: boolean;
  /** Change what Gatehouse sees of the memory adapter. */
  adapter?: (memory: ReturnType<typeof MemoryAdapter>) => Adapter;
}

export function emailWorld(options: EmailWorldOptions = {}) {
  const memory = MemoryAdapter();
  const logger = recordingLogger();
  const links: string[] = [];
  const email: EmailConfig = {
    id: "email",
    type: "email",
    name: "Email",
    sendVerificationRequest: ({ url }) => {
      links.push(url);
    },
  };
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger,
    adapter: options.adapter ? options.adapter(memory) : memory,
    providers: [...(options.providers ?? []), ...(options.email === false ? [] : [email])],
  };
  /** The user id that owns a provider account, if any. */
  const ownerOf = (provider: string, providerAccountId: string) =>
    memory.rows.account({ provider, providerAccountId })?.userId;

  /** Asks for a sign-in link for `address` and clicks it in `jar`. */
  async function emailSignIn(address: string, jar = new Jar()) {
    const csrf = await csrfToken(config, jar);
    const asked = await send(config, jar, "/auth/signin/email", {
      form: { csrfToken: csrf, email: address },
    });
    expect(asked.status).toBe(302);
    const link = new URL(links.pop()!);
    return { response: await followLink(config, jar, link), jar };
  }
  return { memory, config, logger, ownerOf, emailSignIn };
}
