/**
 * An app with a password provider on the memory adapter, its email captured, driven through
 * `Auth()` as browsers (cookie jars) would: sign up, open the emailed link, sign in, ask for a
 * reset, change the password.
 */
import type { Adapter } from "@gatehousejs/core/adapters";
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { hashPassword } from "@gatehousejs/core/password";
import Password, {
  type PasswordEmail,
  type PasswordOptions,
} from "@gatehousejs/core/providers/password";
import { MemorySecurityEventStore } from "@gatehousejs/core/security-log/memory";
import type { AuthConfig, Provider } from "@gatehousejs/core/types";
import { expect, vi } from "vitest";
import { csrfToken, type Jar, ORIGIN, recordingLogger, SECRET, send } from "./helpers.js";
import { formOf } from "./support/email-link.js";

/** Cheap scrypt for tests that hash often; the rehash tests use the defaults. */
export const FAST_HASH = { N: 1024, r: 8, p: 1 };

/** A password the default policy accepts (15 characters or more, not a common one). */
export const PASSWORD = "correct horse battery staple";
export const OTHER_PASSWORD = "a different passphrase entirely";

export interface WorldOptions {
  password?: PasswordOptions;
  config?: Partial<AuthConfig>;
  adapter?: Adapter;
  /** Providers beside the password provider. */
  providers?: Provider[];
  /** Add an email sign-in provider (`email`), whose links go to `emailLinks`. */
  emailSignIn?: boolean;
}

export function passwordWorld(options: WorldOptions = {}) {
  const adapter = (options.adapter ?? MemoryAdapter()) as ReturnType<typeof MemoryAdapter>;
  const mails: PasswordEmail[] = [];
  const logger = recordingLogger();
  const securityLog = MemorySecurityEventStore();
  /** Every event callback's argument, in order. */
  const events: { name: string; message: unknown }[] = [];
  const record =
    (name: string) =>
    (message: unknown): void => {
      events.push({ name, message });
    };
  /** The links the email sign-in provider sent, in order. */
  const emailLinks: string[] = [];
  const emailProvider: Provider = {
    id: "email",
    type: "email",
    name: "Email",
    sendVerificationRequest: ({ url }: { url: string }) => {
      emailLinks.push(url);
    },
  } as Provider;
  const provider = Password({
    hash: FAST_HASH,
    sendEmail: (email) => {
      mails.push(email);
    },
    ...options.password,
  });
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    logger,
    adapter,
    securityLog: { store: securityLog },
    events: {
      signIn: record("signIn"),
      createUser: record("createUser"),
      updateUser: record("updateUser"),
      linkAccount: record("linkAccount"),
      session: record("session"),
    },
    callbacks: {
      signIn: vi.fn(() => true),
    },
    providers: [
      provider,
      ...(options.providers ?? []),
      ...(options.emailSignIn ? [emailProvider] : []),
    ],
    ...options.config,
  };

  /** Signs up in `jar` with a form post; returns the response. */
  async function signUp(
    jar: Jar,
    email: string,
    password = PASSWORD,
    extra: Record<string, string> = {},
  ): Promise<Response> {
    return send(config, jar, "/auth/signup/password", {
      form: { csrfToken: await csrfToken(config, jar), email, password, ...extra },
    });
  }

  /** Signs up in `jar` with a JSON post; returns the response. */
  async function signUpJson(jar: Jar, body: Record<string, unknown>): Promise<Response> {
    return send(config, jar, "/auth/signup/password", {
      json: { csrfToken: await csrfToken(config, jar), ...body },
    });
  }

  /** The link of the last email to `to`. */
  function lastLink(to: string): URL {
    const mail = mails.filter((m) => m.to === to).at(-1);
    if (!mail) throw new Error(`No email to ${to}`);
    return new URL(mail.url);
  }

  /** Opens `link` in `jar` (GET): the page it answers. */
  async function open(jar: Jar, link: URL): Promise<Response> {
    return send(config, jar, link.pathname + link.search);
  }

  /** Opens `link` in `jar` and posts its page's form, with `extra` fields. */
  async function follow(jar: Jar, link: URL, extra: Record<string, string> = {}) {
    const page = await open(jar, link);
    expect(page.status).toBe(200);
    const html = await page.text();
    const { action, fields } = formOf(html);
    const target = new URL(action, ORIGIN);
    const response = await send(config, jar, target.pathname + target.search, {
      form: { ...fields, ...extra },
    });
    return { html, response };
  }

  /** Signs in with email and password in `jar`; returns the response. */
  async function signIn(jar: Jar, email: string, password = PASSWORD): Promise<Response> {
    return send(config, jar, "/auth/callback/password", {
      form: { csrfToken: await csrfToken(config, jar), email, password },
    });
  }

  /** The address the jar's session shows, or null. */
  async function signedInAs(jar: Jar): Promise<string | null> {
    const response = await send(config, jar, "/auth/session");
    expect(response.status).toBe(200);
    const body = (await response.json()) as { user?: { email?: string } } | null;
    return body?.user?.email ?? null;
  }

  /** The stored password account of the user holding `email`. */
  async function account(email: string) {
    const user = await adapter.getUserByEmail(email);
    if (!user) return null;
    return adapter.getAccount(user.id, "password");
  }

  /** A user whose address is proven, holding `password` under the provider. */
  async function verifiedUser(email: string, password = PASSWORD) {
    const user = await adapter.createUser({
      id: crypto.randomUUID(),
      email,
      emailVerified: new Date(),
    });
    await adapter.linkAccount({
      userId: user.id,
      type: "password",
      provider: provider.id,
      providerAccountId: user.id,
      passwordHash: await hashPassword(password, FAST_HASH),
    });
    return user;
  }

  /** Asks for a reset of `email` from `jar` (a form post, or JSON with `json`). */
  async function requestReset(jar: Jar, email: string, json = false): Promise<Response> {
    const body = { csrfToken: await csrfToken(config, jar), email };
    return send(
      config,
      jar,
      `/auth/forgot-password/${provider.id}`,
      json ? { json: body } : { form: body },
    );
  }

  /** The last email to `to`, of `kind` when given. */
  function lastMail(to: string, kind?: PasswordEmail["kind"]): PasswordEmail {
    const mail = mails.filter((m) => m.to === to && (kind === undefined || m.kind === kind)).at(-1);
    if (!mail) throw new Error(`No ${kind ?? ""} email to ${to}`);
    return mail;
  }

  /** Changes the password of `jar`'s user (a form post, or JSON with `json`). */
  async function changePassword(
    jar: Jar,
    currentPassword: string,
    password: string,
    json = false,
  ): Promise<Response> {
    const body = { csrfToken: await csrfToken(config, jar), currentPassword, password };
    return send(
      config,
      jar,
      `/auth/change-password/${provider.id}`,
      json ? { json: body } : { form: body },
    );
  }

  /** Asks to move `jar`'s user to `email` (a form post, or JSON with `json`). */
  async function changeEmail(
    jar: Jar,
    email: string,
    currentPassword?: string,
    json = false,
  ): Promise<Response> {
    const body = {
      csrfToken: await csrfToken(config, jar),
      email,
      ...(currentPassword === undefined ? {} : { currentPassword }),
    };
    return send(
      config,
      jar,
      `/auth/change-email/${provider.id}`,
      json ? { json: body } : { form: body },
    );
  }

  /** Asks the email provider for a link to `address` in `jar` and opens it (GET, then POST). */
  async function emailSignIn(jar: Jar, address: string): Promise<Response> {
    const asked = await send(config, jar, "/auth/signin/email", {
      form: { csrfToken: await csrfToken(config, jar), email: address },
    });
    expect(asked.status).toBe(302);
    const link = new URL(emailLinks.at(-1) as string);
    const { response } = await follow(jar, link);
    return response;
  }

  return {
    adapter,
    config,
    changeEmail,
    emailLinks,
    emailSignIn,
    provider,
    verifiedUser,
    requestReset,
    lastMail,
    changePassword,
    mails,
    logger,
    securityLog,
    events,
    signUp,
    signUpJson,
    lastLink,
    open,
    follow,
    signIn,
    signedInAs,
    account,
  };
}

/** Where a refused sign-in goes: the sign-in page with `error` (and `code`). */
export function signInErrorUrl(error: string, code?: string): string {
  const url = new URL(`${ORIGIN}/auth/signin`);
  url.searchParams.set("error", error);
  if (code) url.searchParams.set("code", code);
  return url.href;
}
