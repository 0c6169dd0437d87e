/**
 * An app with a passkey provider on the memory adapter and a security log, driven through
 * `Auth()` as browsers (cookie jars) would, each passkey answered by a software authenticator.
 */
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import Passkey from "@gatehousejs/core/providers/passkey";
import { MemorySecurityEventStore } from "@gatehousejs/core/security-log/memory";
import type { AuthConfig, Provider } from "@gatehousejs/core/types";
import { expect } from "vitest";
import { csrfToken, type Jar, ORIGIN, recordingLogger, SECRET, send } from "./helpers.js";
import { SoftAuthenticator, type SoftAuthenticatorOptions } from "./support/authenticator.js";

type Options = Parameters<SoftAuthenticator["register"]>[0];
type RequestOptions = Parameters<SoftAuthenticator["authenticate"]>[0];

export function passkeysWorld(
  options: { config?: Partial<AuthConfig>; providers?: Provider[] } = {},
) {
  const adapter = MemoryAdapter();
  const logger = recordingLogger();
  const securityLog = MemorySecurityEventStore();
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    logger,
    securityLog: { store: securityLog },
    experimental: { enableWebAuthn: true },
    providers: [Passkey({ enableConditionalUI: false }), ...(options.providers ?? [])],
    ...options.config,
  };

  async function ceremony(jar: Jar, query: string) {
    const response = await send(config, jar, `/auth/webauthn-options/passkey${query}`);
    expect(response.status).toBe(200);
    return (await response.json()) as { action: string; options: Options & RequestOptions };
  }

  const callback = (jar: Jar, action: string, data: unknown) =>
    send(config, jar, "/auth/callback/passkey", {
      form: { action, data: JSON.stringify(data) },
    });

  /**
   * Registers a new passkey in `jar`: for the signed-in user, or a new passkey-only user (then
   * signed in). Returns the device and the stored credential id (standard base64).
   */
  async function register(jar: Jar, device = new SoftAuthenticator()) {
    const { options: asked } = await ceremony(jar, "?action=register");
    const done = await callback(jar, "register", device.register(asked, ORIGIN));
    expect(done.status).toBe(302);
    expect(done.headers.get("location")).toBe(ORIGIN);
    const id = Buffer.from(device.credentials.at(-1)!.id, "base64url").toString("base64");
    return { device, credentialID: id };
  }

  /** Signs in with `device`'s passkey in `jar`; returns the callback's answer. */
  async function signInWith(jar: Jar, device: SoftAuthenticator) {
    const { options: asked } = await ceremony(jar, "");
    return callback(jar, "authenticate", device.authenticate(asked, ORIGIN));
  }

  /** Whether `jar` holds a session. */
  async function signedIn(jar: Jar): Promise<boolean> {
    const response = await send(config, jar, "/auth/session");
    const body = (await response.json()) as { user?: unknown } | null;
    return body?.user !== undefined;
  }

  /** The id of the user holding the passkey `credentialID`. */
  async function ownerOf(credentialID: string): Promise<string> {
    return (await adapter.getAuthenticator(credentialID))!.userId;
  }

  /** GET /auth/passkeys as a JSON client. */
  const list = (jar: Jar) =>
    send(config, jar, "/auth/passkeys", { headers: { accept: "application/json" } });

  /** POST /auth/passkeys/remove as a JSON client, with the jar's CSRF token. */
  async function remove(jar: Jar, credentialID: unknown, extra: Record<string, unknown> = {}) {
    return send(config, jar, "/auth/passkeys/remove", {
      json: { csrfToken: await csrfToken(config, jar), credentialID, ...extra },
    });
  }

  return {
    adapter,
    logger,
    securityLog,
    config,
    register,
    signInWith,
    signedIn,
    ownerOf,
    list,
    remove,
  };
}

export type { SoftAuthenticatorOptions };
