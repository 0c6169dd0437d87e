import type { ChildProcess } from "node:child_process";

/** The demo account seeded in every database in demo mode. */
export const DEMO_ACCOUNT: { email: string; password: string };

export interface DemoOptions {
  /** The app's port (required: the OpenID client's redirect URIs name it). */
  port: number;
  /** The SMTP capture's port; 0 picks a free one. Default `DEMO_SMTP_PORT`, else free. */
  smtpPort?: number;
  /** The local OpenID provider's port; 0 picks a free one. Default `DEMO_OIDC_PORT`, else free. */
  oidcPort?: number;
  /**
   * Lifetime (seconds) of the local OpenID provider's access tokens. Default 600; shorter makes
   * the provider-token page renew its token sooner.
   */
  oidcAccessTokenTtl?: number;
  /** Where PGlite and the mailbox live. Default `.data` in the example. */
  dataDir?: string;
  /** Environment on top of `process.env`; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  /** The app's stdout and stderr: shown (`inherit`, the default) or kept for `log()` (`pipe`). */
  output?: "inherit" | "pipe";
}

export interface Demo {
  /** `http://localhost:<port>` */
  url: string;
  /** The SMTP server (`smtp://…`, or `configured` for EMAIL_SERVER) and the OpenID issuer. */
  services: { smtp: string; oidc: string };
  mailboxDir: string;
  child: ChildProcess;
  log(): string;
  close(): Promise<void>;
}

/** Starts the built app (`next start`) in demo mode with its SMTP capture and OpenID provider. */
export function startDemo(options: DemoOptions): Promise<Demo>;
